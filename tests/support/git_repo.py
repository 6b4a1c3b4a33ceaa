"""Running git in a test's folder, with an identity of its own."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(root: Path, *args: str) -> str:
    """``git ARGS`` in ``root``; its stdout. Fails the test when git fails."""
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root, check=True, capture_output=True, text=True,
    ).stdout
