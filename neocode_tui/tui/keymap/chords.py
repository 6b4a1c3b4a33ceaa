"""Chords: two keys or more pressed one after the other (``Ctrl+X Ctrl+E``).

Textual binds single keys, so the app reads chords itself: each key goes through the
``ChordReader`` before anything else sees it. A key that starts a chord waits for the
next; the key that ends one runs its action; a key that goes nowhere after a start is the
user changing their mind: the start is dropped and the key does what it always does (Esc
only cancels).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from neocode_tui.tui.keymap.names import Sequence


@dataclass(frozen=True)
class Step:
    kind: Literal["wait", "run", "pass", "cancel"]
    """wait: the key started (or went on with) a chord; run: it ended one, ``action`` runs;
    pass: it is no chord's, the app handles it as usual (``pressed``: the start it broke
    off, if any); cancel: Esc after a start, which ends it and does nothing else."""
    action: str | None = None
    pressed: Sequence = ()
    """The keys of the chord so far (or the start given up)."""


class ChordReader:
    def __init__(self, chords: Mapping[Sequence, str]) -> None:
        self._chords = dict(chords)
        self._starts = {sequence[:n] for sequence in chords for n in range(1, len(sequence))}
        self.pressed: Sequence = ()

    def feed(self, key: str) -> Step:
        sequence = (*self.pressed, key)
        if sequence in self._chords:
            self.pressed = ()
            return Step("run", self._chords[sequence], sequence)
        if sequence in self._starts:
            self.pressed = sequence
            return Step("wait", pressed=sequence)
        if not self.pressed:
            return Step("pass")
        started, self.pressed = self.pressed, ()
        if key == "escape":
            return Step("cancel", pressed=started)
        again = self.feed(key)
        return again if again.kind != "pass" else Step("pass", pressed=started)
