"""Hostile text for the terminal-escape tests: one of each kind of control a model, a tool or
a file could try on the user's terminal, what the user is shown instead, and a check of what
was written to a terminal."""

from __future__ import annotations

import os
import re
import select
import time

from neocode_tui.terminal_text import has_controls
from tests.support.waits import PATIENCE

PIECES = (
    # (what arrives, what the user sees)
    ("\x1b]52;c;cHduZWQ=\x07", "␛]52;c;cHduZWQ=␇"),  # OSC 52: set the clipboard
    ("\x1b]0;pwned\x07", "␛]0;pwned␇"),  # OSC 0: retitle the window
    ("\x1b]2;pwned\x1b\\", "␛]2;pwned␛\\"),  # the same, ended by ST
    ("\x1b[2J", "␛[2J"),  # clear the screen
    ("\x9b2J", "\\x9b2J"),  # the same with the 8-bit CSI (C1)
    ("del\x7f", "del␡"),
    ("bs\x08\x08", "bs␈␈"),  # backspace over what was written
    ("cr\rX", "cr␍X"),  # carriage return: paint over the start of the line
    ("rlo\u202eevil\u202c", "rlo\\u202eevil\\u202c"),  # bidi override (Trojan Source)
    ("lri\u2066x\u2069", "lri\\u2066x\\u2069"),  # bidi isolate
)
HOSTILE = " ".join(raw for raw, _ in PIECES)
"""Every piece on one line, between spaces (model text)."""
HOSTILE_LINES = "".join(f"{raw}\n" for raw, _ in PIECES)
"""Every piece on a line of its own (a file, a command's output)."""
WITHOUT_CR = tuple(piece for piece in PIECES if "\r" not in piece[0])
"""A running command's output shows a carriage return as a terminal would: the line starts
over (a progress bar); everything else it shows escaped."""

_OWN_SEQUENCES = re.compile(r"\x1b\[[0-9;:]*[mH]|\x1b\]8;[^\x1b\x07]*\x1b\\")
"""What Textual itself writes: colours and styles (SGR), cursor moves, hyperlinks (OSC 8)."""


def foreign_controls(written: str) -> list[str]:
    """The control characters in ``written`` that are not part of the app's own sequences:
    none, when nothing of the content reached the terminal as a control."""
    rest = _OWN_SEQUENCES.sub("", written)
    return sorted({repr(char) for char in rest if has_controls(char)})


_DRIVER_SEQUENCES = re.compile(r"\x1b\[[?>][0-9;]*[a-zA-Z]|\x1b\[\?[0-9]+\$p|\x1b\]22;[a-z-]*\x07|\r(?=\n)")
"""What Textual's driver adds on a real terminal: private modes and their queries (the
alternate screen, mouse, paste, sync), the pointer shape (OSC 22), and the terminal's CR
before each line feed."""


def foreign_controls_on_a_terminal(written: str) -> list[str]:
    """``foreign_controls`` of all a real terminal was sent by the app."""
    return foreign_controls(_DRIVER_SEQUENCES.sub("", written))


def missing(screen: str, pieces: tuple[tuple[str, str], ...] = PIECES) -> list[str]:
    """The escaped pieces the user should see but does not."""
    return [shown for _, shown in pieces if shown not in screen]


def read_terminals(masters: list[int], timeout: float = PATIENCE) -> list[bytes]:
    """Everything written to each pseudo-terminal (by its master side) until every writer
    has closed it: reading a master whose other side is closed for good fails (EIO)."""
    got = {fd: b"" for fd in masters}
    open_fds = set(masters)
    deadline = time.monotonic() + timeout
    while open_fds:
        if time.monotonic() > deadline:
            raise AssertionError(f"the terminals were still open after {timeout} s: {got}")
        ready, _, _ = select.select(list(open_fds), [], [], 0.5)
        for fd in ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if chunk:
                got[fd] += chunk
            else:
                open_fds.discard(fd)
    return [got[fd] for fd in masters]
