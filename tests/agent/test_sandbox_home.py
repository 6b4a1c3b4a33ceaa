"""What a sandboxed command sees of the user, through the real bash tool in real bubblewrap:
the home folder is an allow-list (a fake home outside /tmp, planted with credentials a
list of known secrets would miss), and so is the environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.sandbox import CREDENTIALS, SECRET, TOOLCHAIN, run


async def test_the_home_folder_is_hidden_except_its_toolchains(workspace: Path, home: Path) -> None:
    reads = "; ".join(f"cat ~/{relative}" for relative in [*CREDENTIALS, "notes.txt"])
    out = await run(workspace, f"{reads}; ~/{TOOLCHAIN}; python3 -c 'print(6 * 7)'")

    assert SECRET not in out.text and "just notes" not in out.text
    lines = out.text.splitlines()
    for relative in [*CREDENTIALS, "notes.txt"]:
        assert (f"cat: {home}/{relative}: No such file or directory" in lines
                or f"cat: {home}/{relative}: Permission denied" in lines)  # NeoCode's config
    # A toolchain in the fake home, and the Python of the account's own home, still run.
    assert "hello from cargo\n42" in out.text
    assert (home / ".codex" / "auth.json").read_text() == f"token={SECRET}"  # hidden, not touched


async def test_reading_the_hidden_home_says_why(workspace: Path, home: Path) -> None:
    out = await run(workspace, "cat ~/.codex/auth.json")

    assert out.is_error
    assert ("[this may have failed because of the sandbox: the home folder is hidden in the "
            "sandbox, except toolchains and package caches.") in out.text


async def test_a_command_writes_to_a_throwaway_home_and_toolchains_stay_read_only(
    workspace: Path, home: Path
) -> None:
    out = await run(workspace, f"echo kept > ~/new.txt && cat ~/new.txt && echo x >> ~/{TOOLCHAIN}")

    assert out.text.startswith("kept\n")
    assert "Read-only file system" in out.text
    assert not (home / "new.txt").exists()
    assert (home / TOOLCHAIN).read_text() == "#!/bin/sh\necho hello from cargo\n"


async def test_a_workspace_in_the_home_folder_stays_writable_alone(home: Path) -> None:
    project = home / "src" / "project"
    project.mkdir(parents=True)
    (home / "src" / "other.txt").write_text(SECRET)

    out = await run(project, "echo built > out.txt && cat out.txt && cat ../other.txt")

    assert out.text.startswith("built\n") and SECRET not in out.text
    assert (project / "out.txt").read_text() == "built\n"


async def test_toolchains_on_path_or_linked_elsewhere_are_bound_back(
    workspace: Path, home: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (home / "bin").mkdir()
    (home / "bin" / "mytool").write_text("#!/bin/sh\necho my tool\n")
    (home / "bin" / "mytool").chmod(0o755)
    (outside / "nvm").mkdir()
    (outside / "nvm" / "alias").write_text("lts\n")
    (home / ".nvm").symlink_to(outside / "nvm")
    monkeypatch.setenv("PATH", f"{home / 'bin'}{os.pathsep}{os.environ['PATH']}")

    out = await run(workspace, "mytool && cat ~/.nvm/alias")

    assert not out.is_error, out.text
    assert out.text == "my tool\nlts"


async def test_only_the_allowed_variables_reach_a_command(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-sandbox-KEY-93af10"
    secrets = {
        "GITHUB_TOKEN": "ghp_sandboxTOKEN1", "AWS_SECRET_ACCESS_KEY": "aws-SECRET-2",
        "HF_TOKEN": "hf_TOKEN-3", "ANTHROPIC_AUTH_TOKEN": "auth-TOKEN-4",
        "DOCS_TOKEN": "mcp-header-TOKEN-5",  # what an MCP server's ${DOCS_TOKEN} header reads
        "NODE_AUTH_TOKEN": "npm-TOKEN-6",  # an allowed prefix, but a secret's name
        "PIP_INDEX_URL": "https://user:pw-SECRET-7@pypi.example/simple",  # credentials in a URL
        "OPENAI_API_KEY": key, "RUSTFLAGS": f"-C key={key}",  # allowed, but it holds the key
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    allowed = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "CARGO_HOME": "/opt/cargo",
               "PYTHONUNBUFFERED": "1", "GIT_AUTHOR_NAME": "Ada"}
    for name, value in allowed.items():
        monkeypatch.setenv(name, value)

    out = await run(workspace, "env; cat /proc/[0-9]*/environ | tr '\\0' '\\n'", secrets=[key])

    for name, value in secrets.items():
        assert name not in out.text and value not in out.text
    for name, value in allowed.items():
        assert f"{name}={value}\n" in out.text
    assert f"HOME={os.environ['HOME']}\n" in out.text and "TMPDIR=/tmp\n" in out.text
    assert "PAGER=cat" in out.text
