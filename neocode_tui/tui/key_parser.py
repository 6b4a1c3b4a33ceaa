"""Key encodings Textual's input parser gets wrong, read right.

- Alt with a control key (Alt+Enter, Alt+Tab, Alt+Backspace…) arrives as ESC then the
  control character; Textual reports the bare key, so Alt+Enter sent the prompt it should
  have broken. It is reported with ``alt+`` here (pairs Textual names, such as ESC DEL for
  Ctrl+W, keep their names).
- xterm's modifyOtherKeys form, ``CSI 27 ; modifiers ; code ~`` (xterm's Shift+Enter is
  ``ESC[27;2;13~``), which Textual reads as a key named after the code's character and no
  widget answers. It is read as the same key in the kitty form, ``CSI code ; modifiers u``.
- Esc with a character typed right behind it (within the terminal's, or tmux's, escape-time)
  arrives as one key: Alt+x, or for ESC b and ESC f Ctrl+Left and Ctrl+Right, for ESC 0 "º".
  Those keys keep their names (an editor's word moves stay) and carry the character
  (``after_escape``) for vi mode, where Esc then b is a command. Such a pair is read at once,
  not after the parser's wait for more: a parser still waiting when the next Esc came turned
  the first into a literal "^" (Esc, A, a word, Esc, as fast as a vi user types, left "^A…"
  in the prompt). Only the characters that open a longer sequence (``[``, ``O``, ``]``) wait.

Every driver (the terminal's, the browser front end's) makes its parser from the name
``XTermParser`` in its own module; ``use_in`` points that name here for the driver in use.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable

from textual import events
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._xterm_parser import XTermParser
from textual.driver import Driver

ESC = "\x1b"
_AFTER_ESCAPE = "neocode_after_escape"
_OPENS_SEQUENCE = {key[1] for key in ANSI_SEQUENCES_KEYS if len(key) > 2 and key[0] == ESC} | {"]"}
_MODIFY_OTHER_KEYS = re.compile(r"\x1b\[27;(\d+);(\d+)~")


def _alt_control(character: str) -> list[events.Key] | None:
    """The keys of Alt with ``character``, when it is a control character Textual names
    (Enter, Tab, Ctrl+letter); None for any other character, which Textual handles."""
    keys = ANSI_SEQUENCES_KEYS.get(character)
    if not isinstance(keys, tuple) or not keys:
        return None
    return [events.Key(f"alt+{key.value}", None) for key in keys]


def after_escape(key: events.Key) -> str | None:
    """The character typed right behind Esc when the terminal sent the two as ``key``."""
    typed = getattr(key, _AFTER_ESCAPE, None)
    return typed if isinstance(typed, str) else None


def _typed_after_escape(sequence: str, alt: bool) -> str | None:
    if len(sequence) == 2 and sequence[0] == ESC and sequence[1].isprintable():
        return sequence[1]
    return sequence if alt and len(sequence) == 1 and sequence.isprintable() else None


class KeyParser(XTermParser):
    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        keys = list(self._keys(sequence, alt))
        typed = _typed_after_escape(sequence, alt)
        if typed is not None:
            for key in keys:
                setattr(key, _AFTER_ESCAPE, typed)
        return keys

    def _keys(self, sequence: str, alt: bool) -> Iterable[events.Key]:
        if match := _MODIFY_OTHER_KEYS.fullmatch(sequence):
            modifiers, code = match.groups()
            sequence = f"{ESC}[{code};{modifiers}u"
        elif (
            len(sequence) == 2 and sequence[0] == ESC and sequence not in ANSI_SEQUENCES_KEYS
            and (keys := _alt_control(sequence[1]))
        ):
            return keys
        elif alt and len(sequence) == 1 and (keys := _alt_control(sequence)):
            return keys
        elif (
            len(sequence) == 2 and sequence[0] == ESC and sequence not in ANSI_SEQUENCES_KEYS
            and sequence[1].isprintable() and sequence[1] not in _OPENS_SEQUENCE
        ):
            return super()._sequence_to_key_events(sequence[1], alt=True)
        return super()._sequence_to_key_events(sequence, alt)


def use_in(driver_class: type[Driver]) -> type[Driver]:
    """``driver_class``, its module now making ``KeyParser``s."""
    module = sys.modules.get(driver_class.__module__)
    if module is not None and getattr(module, "XTermParser", None) is XTermParser:
        module.XTermParser = KeyParser  # type: ignore[attr-defined]
    return driver_class
