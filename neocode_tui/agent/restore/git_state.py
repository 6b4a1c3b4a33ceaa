"""The workspace's git state, for /diff and for what /undo and /rewind cannot take back.

Checkpoints only know what the file tools wrote; in a git repository, ``git status`` and
``git diff`` also show what commands changed. Git runs through ``git_run`` (pinned to the
repository found at the session's start, never running what the repository names, with a
time limit); without git, or outside a repository, every answer is None.
"""

from __future__ import annotations

import functools
from pathlib import Path

from neocode_tui.agent.restore.git_run import Repository, run_git

NEW_FILES_SHOWN = 50


async def status_short(repository: Repository | None, workspace: Path) -> str | None:
    """``git status --short`` of the workspace; None outside a repository."""
    if repository is None:
        return None
    return await run_git(repository, workspace, "status", "--short", "--", ".")


async def working_diff(repository: Repository | None, workspace: Path) -> str | None:
    """Everything not committed: ``git diff HEAD`` (staged and not), and new files shown
    whole; None outside a repository."""
    if repository is None:
        return None
    git = functools.partial(run_git, repository, workspace)
    if await git("rev-parse", "--is-inside-work-tree") != "true\n":
        return None  # the repository is gone since
    has_head = await git("rev-parse", "--verify", "-q", "HEAD") is not None
    tracked = await git("diff", "HEAD" if has_head else "--cached", "--", ".") or ""
    untracked = await git("ls-files", "--others", "--exclude-standard", "-z", "--", ".") or ""
    names = [name for name in untracked.split("\0") if name]
    new_files = []
    for name in names[:NEW_FILES_SHOWN]:
        # --no-index exits with 1 when the files differ, as they always do here.
        new_files.append(await git("diff", "--no-index", "--", "/dev/null", name, ok=(0, 1)) or "")
    if len(names) > NEW_FILES_SHOWN:
        new_files.append(f"[{len(names) - NEW_FILES_SHOWN} more new files not shown]\n")
    return tracked + "".join(new_files)
