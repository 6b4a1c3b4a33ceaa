"""The ``neocode`` command and its front ends: the app, headless runs, replays and demos.

Each front end sits on the Textual-free core in ``neocode_tui.agent``; heavy imports stay
lazy so ``neocode --help`` and ``neocode replay --json`` never import Textual.
"""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.cli.dispatch import main
    from neocode_tui.cli.parser import build_parser

__all__ = [
    "build_parser",
    "main",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "dispatch": ("main",),
        "parser": ("build_parser",),
    })
