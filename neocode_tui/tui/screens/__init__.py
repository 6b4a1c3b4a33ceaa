"""The app's modal screens: approvals, questions, pickers and dialogs."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.tui.screens.approval import ApprovalScreen
    from neocode_tui.tui.screens.rewind import DiffScreen, RestoreScreen, RewindScreen
    from neocode_tui.tui.screens.session_picker import SessionPicker

__all__ = [
    "ApprovalScreen",
    "DiffScreen",
    "RestoreScreen",
    "RewindScreen",
    "SessionPicker",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "approval": ("ApprovalScreen",),
        "rewind": ("DiffScreen", "RestoreScreen", "RewindScreen",),
        "session_picker": ("SessionPicker",),
    })
