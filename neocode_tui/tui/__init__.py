"""The Textual app: the screen a person works in, and what starting it takes."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.tui.app import NeoCodeApp
    from neocode_tui.tui.starting import Loaded, Starting
    from neocode_tui.tui.user_config import app_state_file, load_user_config

__all__ = [
    "Loaded",
    "NeoCodeApp",
    "Starting",
    "app_state_file",
    "load_user_config",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "app": ("NeoCodeApp",),
        "starting": ("Loaded", "Starting",),
        "user_config": ("app_state_file", "load_user_config",),
    })
