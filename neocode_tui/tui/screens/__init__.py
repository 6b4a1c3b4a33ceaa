"""The app's modal screens: approvals, questions, pickers and dialogs."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.tui.screens.approval import ApprovalScreen
    from neocode_tui.tui.screens.jobs import JobsScreen
    from neocode_tui.tui.screens.quit import confirm_quit, stopping_words
    from neocode_tui.tui.screens.rewind import DiffScreen, RestoreScreen, RewindScreen
    from neocode_tui.tui.screens.session_picker import SessionPicker

__all__ = [
    "ApprovalScreen",
    "DiffScreen",
    "JobsScreen",
    "RestoreScreen",
    "RewindScreen",
    "SessionPicker",
    "confirm_quit",
    "stopping_words",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "approval": ("ApprovalScreen",),
        "jobs": ("JobsScreen",),
        "quit": ("confirm_quit", "stopping_words",),
        "rewind": ("DiffScreen", "RestoreScreen", "RewindScreen",),
        "session_picker": ("SessionPicker",),
    })
