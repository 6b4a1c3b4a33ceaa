"""``neocode --screen-reader``: the conversation as plain lines appended in order, each
said once, for a screen reader reading the terminal."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.cli.reader.announce import Announcer
    from neocode_tui.cli.reader.talk import run_reader
    from neocode_tui.cli.reader.wanted import reader_wanted

__all__ = ["Announcer", "reader_wanted", "run_reader"]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "announce": ("Announcer",),
        "talk": ("run_reader",),
        "wanted": ("reader_wanted",),
    })
