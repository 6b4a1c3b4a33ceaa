"""Text from the model, a tool, a file or a server, made safe to show on a terminal.

Such text is data. Written as it is, an escape sequence in it would act: set the clipboard
(OSC 52), retitle the window, clear the screen, move the cursor to paint over what was shown.
Neither Rich nor Textual stops that: they drop BEL, BS, VT, FF and CR but pass ESC, the C1
controls and DEL through to the terminal. So every control character is shown instead, as a
visible stand-in one looks at and cannot mistake for text:

- C0 (but newline and tab) and DEL as their Unicode control pictures: ESC as ``␛``, BEL
  ``␇``, BS ``␈``, DEL ``␡``; one cell each, so a line keeps its layout;
- a carriage return likewise (``␍``), as it could send the cursor back to paint over the
  start of a line; in a CRLF line end it hides nothing and just goes, with the CR;
- C1 (0x80-0x9f, where a terminal may read 0x9b as CSI) and Unicode's bidirectional
  controls (U+061C, U+200E/F, U+202A-202E, U+2066-2069, which reorder what is shown:
  "Trojan Source") have no pictures and are shown by code: ``\\x9b``, ``\\u202e``.

``visible`` is the one definition; front ends call it on what they draw. The check comes
first and runs in C, so text without any control (nearly all of it) costs one regex scan
and is returned as it is.
"""

from __future__ import annotations

import re
from functools import partial
from typing import TextIO

_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
CONTROLS = (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0), *_BIDI)
"""Every character that is never shown as it is: C0 but newline and tab, DEL, C1, bidi."""


def _stand_in(code: int) -> str:
    if code < 0x20:
        return chr(0x2400 + code)  # the control pictures block, in C0 order
    if code == 0x7F:
        return "\u2421"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_SHOWN = {chr(code): _stand_in(code) for code in CONTROLS}
_AS_JSON = {chr(code): f"\\u{code:04x}" for code in CONTROLS}
_FIND = re.compile("[" + "".join(f"\\u{code:04x}" for code in CONTROLS) + "]")
has_controls = _FIND.search
"""A match (truthy) when the text holds any of ``CONTROLS``."""
# Replacing match by match beats ``str.translate`` several times over: controls are few
# even in coloured output, and translate looks every character up.
_show = partial(_FIND.sub, lambda match: _SHOWN[match.group()])
_as_json = partial(_FIND.sub, lambda match: _AS_JSON[match.group()])


def visible(text: str) -> str:
    """``text`` with every control character shown as its stand-in."""
    if _FIND.search(text) is None:
        return text
    return _show(text.replace("\r\n", "\n"))


def without_controls(text: str) -> str:
    """``text`` with the control characters taken out: the last line of defence on text
    already laid out (they take no cell, so nothing moves)."""
    return _FIND.sub("", text) if _FIND.search(text) else text


def visible_json(text: str) -> str:
    """A JSON document with every control written as a ``\\uXXXX`` escape: the same data,
    safe on a terminal (JSON escapes C0 itself, but not DEL, C1 or the bidi controls)."""
    return _as_json(text) if _FIND.search(text) else text


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (ValueError, OSError):  # closed, or gone
        return False


def for_stream(text: str, stream: TextIO) -> str:
    """``text`` as ``stream`` should get it: shown escaped on a terminal, raw into a pipe or
    a file (where it is data a program reads, and must stay exact)."""
    return visible(text) if is_terminal(stream) else text


class VisibleChunks:
    """``visible`` over text that comes in pieces: a CR that ends one piece waits for the
    next, since a CRLF split between two is still a line end."""

    def __init__(self) -> None:
        self._held_cr = False

    def __call__(self, piece: str) -> str:
        if not self._held_cr and _FIND.search(piece) is None:
            return piece  # nearly every piece: one scan, in C
        if self._held_cr:
            piece = "\r" + piece
        self._held_cr = piece.endswith("\r")
        return visible(piece[:-1] if self._held_cr else piece)

    def end(self) -> str:
        """What is still held when no more comes: a lone CR."""
        held, self._held_cr = self._held_cr, False
        return visible("\r") if held else ""
