"""Taking back what the agent did: checkpoints of each prompt, /undo, /rewind and /diff, and the
git NeoCode runs."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.restore.checkpoints import UNTRACKED, Checkpoint, Restored
    from neocode_tui.agent.restore.git_run import run_git
    from neocode_tui.agent.restore.restorer import Restorer, UndoPreview

__all__ = [
    "Checkpoint",
    "Restored",
    "Restorer",
    "UNTRACKED",
    "UndoPreview",
    "run_git",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "checkpoints": ("Checkpoint", "Restored", "UNTRACKED",),
        "restorer": ("Restorer", "UndoPreview",),
        "git_run": ("run_git",),
    })
