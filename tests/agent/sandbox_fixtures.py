"""What the sandbox tests share: a home folder holding credentials, outside /tmp."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from neocode_tui.agent.sandbox import Sandbox, choose_sandbox
from neocode_tui.agent.tools import ToolOutput
from neocode_tui.agent.tools.bash import Bash, BashArgs
from neocode_tui.agent.workspace import Workspace

SECRET = "ssh-SECRET-4b1d"


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home folder with credentials in it, where a real one would be: outside /tmp."""
    folder = Path(tempfile.mkdtemp(prefix="neocode-home-", dir="/var/tmp"))
    (folder / ".ssh").mkdir()
    (folder / ".ssh" / "id_ed25519").write_text(SECRET)
    (folder / ".aws").mkdir()
    (folder / ".aws" / "credentials").write_text(f"aws_secret_access_key={SECRET}")
    (folder / ".netrc").write_text(f"machine example.com password {SECRET}")
    (folder / ".env").write_text(f"TOKEN={SECRET}")
    (folder / "notes.txt").write_text("just notes")
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("NEOCODE_CONFIG_DIR", str(folder / ".config" / "neocode"))
    (folder / ".config" / "neocode").mkdir(parents=True)
    (folder / ".config" / "neocode" / "config.json").write_text(f'{{"key": "{SECRET}"}}')
    yield folder
    shutil.rmtree(folder)


def sandbox(mode: str = "workspace-write", network: bool = False) -> Sandbox:
    chosen = choose_sandbox(mode, network)  # type: ignore[arg-type]
    assert chosen.active, f"bubblewrap must work on this machine: {chosen.unavailable}"
    return chosen


async def run(
    workspace: Path, command: str, box: Sandbox | None = None, timeout: int = 30, **kw
) -> ToolOutput:
    """``command`` run by the real bash tool in the real sandbox (``box``, else the usual)."""
    tool = Bash(sandbox=box or sandbox(), **kw)
    return await tool.run(BashArgs(command=command, timeout=timeout), Workspace(workspace))
