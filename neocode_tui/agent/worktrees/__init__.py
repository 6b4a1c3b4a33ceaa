"""Git worktrees for a session (``neocode --worktree``) or a subagent (``isolation:
worktree``): made on a new branch, removed when nothing changed in them, kept otherwise."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.worktrees.trees import (
        Worktree,
        WorktreeError,
        changes,
        finish,
        found_worktree,
        make_worktree,
        worktree_report,
    )

__all__ = [
    "Worktree",
    "WorktreeError",
    "changes",
    "finish",
    "found_worktree",
    "make_worktree",
    "worktree_report",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "trees": ("Worktree", "WorktreeError", "changes", "finish", "found_worktree", "make_worktree",
                  "worktree_report"),
    })
