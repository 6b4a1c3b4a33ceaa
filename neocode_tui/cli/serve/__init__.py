"""``neocode serve``: the app in a browser tab, behind a token."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.cli.serve.command import run_serve

__all__ = [
    "run_serve",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "command": ("run_serve",),
    })
