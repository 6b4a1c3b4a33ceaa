"""The picture at the top of the README is what the app draws now.

It is regenerated here with the command the README gives beneath it, in a real subprocess,
and compared byte for byte with the committed file: a recording runs on a made-up clock,
in a scratch folder, with pinned Textual and Rich (whose SVG ids are a hash of the content),
so nothing in it is random and nothing is normalised away.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from neocode_tui.cli import main
from neocode_tui.tui import themes
from tests.support.waits import PATIENCE

ROOT = Path(__file__).resolve().parents[1]
PICTURE = "docs/neocode.svg"


def readme_command() -> list[str]:
    """The regeneration command written beneath the picture, as words."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    top = readme.split("\n## ", 1)[0]
    assert f"]({PICTURE})" in top, "the README shows the picture before its first section"
    found = re.search(r"`(neocode demo [^`]+)`", top)
    assert found, "the README says beneath the picture how to regenerate it"
    words = shlex.split(found.group(1))
    assert words[-2:] == ["--record", PICTURE]
    return words


def regenerate(cwd: Path) -> bytes:
    """Run the README's command in ``cwd`` (a folder with a ``docs/``), as a user would."""
    (cwd / "docs").mkdir(exist_ok=True)
    words = readme_command()
    done = subprocess.run(
        [sys.executable, "-m", "neocode_tui", *words[1:]], cwd=cwd,
        capture_output=True, text=True, timeout=PATIENCE,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"wrote {PICTURE}"
    return (cwd / PICTURE).read_bytes()


def _differs() -> str:
    return (
        f"{PICTURE} is no longer what the app draws: run `{shlex.join(readme_command())}` "
        "in the checkout, look at the new picture and commit it"
    )


def test_the_readme_picture_is_what_the_app_draws(tmp_path: Path) -> None:
    fresh = regenerate(tmp_path)
    committed = (ROOT / PICTURE).read_bytes()
    same = fresh == committed  # a bool: no diff of 60 kB printed
    assert same, _differs()
    svg = fresh.decode()
    # What the picture is there to show, in the words on screen.
    for words in ("edit_file", "status_code&#160;!=&#160;503", "Tasks", "working", "example.org"):
        assert words in svg, words


def test_the_users_config_folder_does_not_change_the_picture(tmp_path: Path) -> None:
    """A remembered theme, a theme file overriding ours and an MCP server of the user's own
    stay out of a recording: the demo runs with a config folder of its own."""
    config = tmp_path / "config"
    (config / "themes").mkdir(parents=True)
    (config / "settings.json").write_text(json.dumps({"theme": "neocode-light"}))
    dark = (ROOT / "themes" / "neocode-dark.toml").read_text()
    (config / "themes" / "neocode-dark.toml").write_text(dark.replace("#5FBF77", "#00FF00"))
    (config / "mcp.json").write_text(json.dumps({"mcpServers": {"x": {"command": "false"}}}))
    same = regenerate(tmp_path) == (ROOT / PICTURE).read_bytes()
    assert same, "the user's config folder changed the recording"


def test_a_changed_theme_colour_changes_the_picture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above can fail: the theme's green one step off gives another file."""
    bundled = tmp_path / "themes"
    bundled.mkdir()
    dark = (ROOT / "themes" / "neocode-dark.toml").read_text()
    assert 'success = "#5FBF77"' in dark
    (bundled / "neocode-dark.toml").write_text(dark.replace('success = "#5FBF77"', 'success = "#5FBF78"'))
    monkeypatch.setattr(themes, "BUNDLED_THEMES", bundled)
    target = tmp_path / "changed.svg"
    assert main(["demo", "showcase", "--record", str(target)]) == 0
    changed, committed = target.read_text(), (ROOT / PICTURE).read_text()
    assert changed != committed
    assert "#5fbf78" in changed and "#5fbf77" in committed and "#5fbf77" not in changed


def test_a_recording_into_a_missing_folder_is_refused_before_it_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "no-such-folder" / "x.svg"
    assert main(["demo", "showcase", "--record", str(target)]) == 2
    assert capsys.readouterr().err == (
        f"neocode demo: cannot write {target}: there is no folder {target.parent}\n"
    )
    assert not target.parent.exists()
