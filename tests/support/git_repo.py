"""Running git in a test's folder, with an identity of its own."""

from __future__ import annotations

import subprocess
from pathlib import Path


def run_git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` in ``root``, its output captured; fails the test when git fails and ``check``."""
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root, check=check, capture_output=True, text=True,
    )


def git(root: Path, *args: str) -> str:
    """``git ARGS`` in ``root``; its stdout. Fails the test when git fails."""
    return run_git(root, *args).stdout


def committed_repository(root: Path) -> Path:
    """``root`` made a repository on ``main`` with what it holds as its first commit."""
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root
