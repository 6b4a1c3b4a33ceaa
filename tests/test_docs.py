"""The guide in docs/ builds without a warning, and the README and the pages keep their word.

``mkdocs build --strict`` runs in a subprocess, as a contributor runs it; mkdocs.yml makes a
broken link or anchor, and a page left out of the nav, a warning, which fails a strict build.
A copy of the pages with one such mistake shows that it does.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from neocode_tui.tui.commands import built_in_commands
from tests.support.docs_pages import DOCS, PAGES, README, ROOT, shell_blocks
from tests.support.waits import PATIENCE

# Paths of the checkout the docs name (docs/ paths there are examples of a user's workspace).
REPO_PATH = re.compile(r"`((?:neocode_tui|tests|bench|compat|themes|\.ci)/[^`\s]*)`")


def build_site(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    # Material's notice about its successor is printed, not logged: it is no warning, only noise.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        capture_output=True, text=True, timeout=PATIENCE, env=env,
    )


def test_the_guide_builds_without_a_warning(tmp_path: Path) -> None:
    done = build_site(ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr
    # Every page is on the site under its own title, the settings reference included.
    for page in DOCS.glob("*.md"):
        title = page.read_text(encoding="utf-8").split("\n", 1)[0].removeprefix("# ")
        built = tmp_path / "site" / ("index.html" if page.stem == "index" else f"{page.stem}/index.html")
        assert re.search(rf"<h1 id=\"[\w-]+\">{re.escape(title)}<", built.read_text(encoding="utf-8")), page.name
    assert (tmp_path / "site" / "neocode.svg").read_bytes() == (DOCS / "neocode.svg").read_bytes()


@pytest.mark.parametrize(
    ("page", "added", "warning"),
    [
        ("app.md", "\nSee [the old page](no-such-page.md).\n",
         "contains a link 'no-such-page.md', but the target is not found"),
        ("app.md", "\nSee [keys](security.md#no-such-section).\n",
         "does not contain an anchor '#no-such-section'"),
        ("orphan.md", "# A page no one listed\n", 'not included in the "nav" configuration:\n  - orphan.md'),
    ],
    ids=["a broken link", "a broken anchor", "a page left out of the nav"],
)
def test_a_broken_link_or_a_page_left_out_fails_the_build(
    tmp_path: Path, page: str, added: str, warning: str
) -> None:
    checkout = tmp_path / "checkout"
    shutil.copytree(DOCS, checkout / "docs")
    shutil.copy(ROOT / "mkdocs.yml", checkout / "mkdocs.yml")
    with (checkout / "docs" / page).open("a", encoding="utf-8") as file:
        file.write(added)
    done = build_site(checkout / "mkdocs.yml", tmp_path / "site")
    said = done.stdout + done.stderr
    assert done.returncode != 0
    assert "Aborted with 1 warnings in strict mode" in said
    assert warning in said


def test_the_readme_gives_the_test_command_ci_runs() -> None:
    """The fresh-machine section shows two commands: the app's, and the test suite's, which
    ``.ci/run`` runs word for word."""
    section = README.read_text(encoding="utf-8").split("\n## Two commands for a fresh machine\n", 1)[1]
    start_app, run_tests = shell_blocks(section.split("\n## ", 1)[0])
    assert start_app.strip() == "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/neocode"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == run_tests.strip()
    assert ci[-2] == "# The README's test command, exactly:"


def test_every_path_the_docs_name_is_in_the_checkout() -> None:
    missing = [
        f"{page.name}: {path}"
        for page in PAGES
        for path in REPO_PATH.findall(page.read_text(encoding="utf-8"))
        if not (ROOT / path).exists()
    ]
    assert not missing, "the docs name files that are not there (moved?): " + ", ".join(missing)


def test_the_readmes_links_into_the_guide_lead_to_its_pages() -> None:
    """The README is outside the site, so the strict build does not check its links."""
    links = re.findall(r"\]\((docs/[^)#]*)", README.read_text(encoding="utf-8"))
    assert "docs/settings.md" in links and "docs/index.md" in links
    assert [link for link in links if not (ROOT / link).is_file()] == []


def slash_command_rows(page: str) -> dict[str, str]:
    """The table of a page whose first column is a slash command: the command, as a reader
    sees it, to the words beside it. (A pipe in a command is ``&#124;``, which GitHub's tables
    and the site's both show as ``|``.)"""
    rows = {}
    for line in page.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if line.startswith(("| `/", "| <code>/")) and len(cells) == 3:
            rows[html.unescape(re.sub(r"^`|`$|</?code>", "", cells[0]))] = cells[1]
    return rows


def test_the_app_page_lists_every_built_in_slash_command_as_help_says_it() -> None:
    rows = slash_command_rows((DOCS / "app.md").read_text(encoding="utf-8"))
    for command in built_in_commands():
        assert command.usage in rows, f"docs/app.md has no row for {command.usage}"
        assert rows[command.usage].startswith(command.help), command.usage
