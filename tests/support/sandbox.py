"""What the sandbox tests share: a home folder holding credentials and a toolchain, outside
/tmp (the sandbox's /tmp is private, so a folder under it would be out of sight for the wrong
reason), and commands run by the real bash tool in the real sandbox."""

from __future__ import annotations

import tempfile
from pathlib import Path

from neocode_tui.agent.sandbox.bubblewrap import Sandbox, choose_sandbox
from neocode_tui.agent.tools import ToolOutput
from neocode_tui.agent.tools.bash import Bash, BashArgs
from neocode_tui.agent.workspace import Workspace

SECRET = "ssh-SECRET-4b1d"
CREDENTIALS = (
    ".ssh/id_ed25519", ".aws/credentials", ".netrc", ".env", ".config/neocode/config.json",
    ".codex/auth.json", ".claude/.credentials.json", ".cargo/credentials.toml", ".pgpass",
    ".cache/huggingface/token", ".bash_history", ".config/gh/hosts.yml",
)
"""Under the fake home, each holding ``SECRET``: some a list of known secrets would miss."""
TOOLCHAIN = ".cargo/bin/cargo-hello"
"""Under the fake home, a toolchain file commands must still reach."""


def planted_home() -> Path:
    """A new home folder holding ``CREDENTIALS`` and ``TOOLCHAIN``, where a real one would be:
    outside /tmp. The caller removes it."""
    folder = Path(tempfile.mkdtemp(prefix="neocode-home-", dir="/var/tmp"))
    for relative in CREDENTIALS:
        _plant(folder, relative, f"token={SECRET}")
    _plant(folder, TOOLCHAIN, "#!/bin/sh\necho hello from cargo\n")
    (folder / TOOLCHAIN).chmod(0o755)
    (folder / "notes.txt").write_text("just notes")
    return folder


def _plant(folder: Path, relative: str, text: str) -> None:
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


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
