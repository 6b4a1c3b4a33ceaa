"""The workspace's git state, for /diff and for what /undo and /rewind cannot take back.

Checkpoints only know what the file tools wrote; in a git repository, ``git status`` and
``git diff`` also show what commands changed. Git runs as a subprocess with a time limit;
without git, or outside a repository, every answer is None.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

GIT_LIMIT = 10.0
"""Seconds a git command may take (a huge repository); past that it is given up on."""
MAX_OUTPUT = 2_000_000
NEW_FILES_SHOWN = 50


async def _git(root: Path, *args: str, ok: tuple[int, ...] = (0,)) -> str | None:
    git = shutil.which("git")
    if git is None:
        return None
    process = await asyncio.create_subprocess_exec(
        git, "-c", "core.quotepath=off", "--no-pager", *args, cwd=root,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        async with asyncio.timeout(GIT_LIMIT):
            out, _ = await process.communicate()
    except TimeoutError:
        return None
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    if process.returncode not in ok:
        return None
    return out[:MAX_OUTPUT].decode("utf-8", "replace")


async def in_repository(root: Path) -> bool:
    return (await _git(root, "rev-parse", "--is-inside-work-tree")) == "true\n"


async def status_short(root: Path) -> str | None:
    """``git status --short`` of the workspace; None outside a repository."""
    if not await in_repository(root):
        return None
    return await _git(root, "status", "--short", "--", ".")


async def working_diff(root: Path) -> str | None:
    """Everything not committed: ``git diff HEAD`` (staged and not), and new files shown
    whole; None outside a repository."""
    if not await in_repository(root):
        return None
    has_head = await _git(root, "rev-parse", "--verify", "-q", "HEAD") is not None
    tracked = await _git(root, "diff", "HEAD" if has_head else "--cached", "--", ".") or ""
    untracked = await _git(root, "ls-files", "--others", "--exclude-standard", "-z", "--", ".") or ""
    names = [name for name in untracked.split("\0") if name]
    new_files = []
    for name in names[:NEW_FILES_SHOWN]:
        # --no-index exits with 1 when the files differ, as they always do here.
        new_files.append(await _git(root, "diff", "--no-index", "--", "/dev/null", name, ok=(0, 1)) or "")
    if len(names) > NEW_FILES_SHOWN:
        new_files.append(f"[{len(names) - NEW_FILES_SHOWN} more new files not shown]\n")
    return tracked + "".join(new_files)
