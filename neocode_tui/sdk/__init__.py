"""NeoCode as a Python library: a session in a folder, prompts in, its events out.

No screen and no Textual: the same core the app, ``neocode -p`` and editors run (docs/sdk.md).
"""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.sdk.session import Approval, Item, Questions, Run, Session

__all__ = [
    "Approval",
    "Item",
    "Questions",
    "Run",
    "Session",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "session": ("Approval", "Item", "Questions", "Run", "Session"),
    })
