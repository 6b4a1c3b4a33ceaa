"""Stand-ins on PATH for programs a command runs, which say that they ran."""

from __future__ import annotations

import os
from pathlib import Path

NPM = "#!/bin/sh\necho \"npm ran: $*\"\n"


def fake_npm(workspace: Path) -> dict[str, str]:
    """An ``npm`` on PATH that says it ran, so ``npm test`` is a real program (in the
    workspace: the sandbox gives commands a /tmp of their own)."""
    folder = workspace / "bin"
    folder.mkdir(exist_ok=True)
    (folder / "npm").write_text(NPM)
    (folder / "npm").chmod(0o755)
    return {"PATH": f"{folder}:{os.environ['PATH']}"}
