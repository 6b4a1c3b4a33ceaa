"""Vi keys for the prompt as a pure state machine: a key and the prompt's text and cursor in,
the new text, cursor and mode out. No Textual here, so every command is tested on strings.

The text is the prompt's lines joined with ``\\n`` and the cursor an offset into it. What is
covered is what users of the peers' vi modes reach for: the insert keys (i a I A o O), the
motions h l j k w b e 0 ^ $ gg G, the operators d c y with a motion or doubled (dd cc yy),
x X D C s S, p P from one register, u, r, and counts (3w, 2dd, d2w). In NORMAL a key that is
no command types nothing: a mistyped command never lands in the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

Mode = Literal["insert", "normal"]
MotionKind = Literal["exclusive", "inclusive", "linewise"]

UNDO_DEPTH = 100
MAX_COUNT = 999
"""Counts stop here, and a paste at ``MAX_PASTE`` characters: a held key or a stray 99999p
never stalls the screen on a prompt."""
MAX_PASTE = 100_000
_COMMAND = re.compile(r"(?P<n1>[1-9]\d*)?(?:(?P<op>[dcy])(?P<n2>[1-9]\d*)?)?(?P<key>g.?|r.?|[^1-9]|)", re.S)
"""A count, an operator with its own count, then the command: ``g`` and ``r`` wait for one
more character; a ``0`` after a count's first digit is part of the count."""
_INCOMPLETE = ("", "g", "r")
_MOTIONS = frozenset(("h", "l", "j", "k", "w", "b", "e", "0", "^", "$", "gg", "G"))
_BLANKS = " \t\n"


@dataclass(frozen=True)
class Edit:
    """What a key did; ``history``: j or k at the last or first line, which walks the
    prompt history instead (the widget does it as it does for Down and Up)."""

    text: str
    cursor: int
    mode: Mode
    history: Literal["previous", "next"] | None = None


@dataclass
class Register:
    """The one register yanks and deletes fill; ``linewise`` pastes as whole lines."""

    text: str = ""
    linewise: bool = False


def _kind(character: str) -> int:
    """0 blank, 1 a word character, 2 other punctuation: vi's words are runs of one kind."""
    if character in _BLANKS:
        return 0
    return 1 if character.isalnum() or character == "_" else 2


def line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end == -1 else end


def _line_starts(text: str) -> list[int]:
    return [0, *(index + 1 for index, character in enumerate(text) if character == "\n")]


def _first_blank_free(text: str, start: int) -> int:
    end, at = line_end(text, start), start
    while at < end and text[at] in " \t":
        at += 1
    return at


def on_character(text: str, at: int) -> int:
    """Where NORMAL puts the cursor: on a character, never past a line's last one."""
    at = max(0, min(at, len(text)))
    return min(at, max(line_start(text, at), line_end(text, at) - 1))


def _next_word(text: str, at: int) -> int:
    end = len(text)
    if at >= end:
        return end
    kind = _kind(text[at])
    if kind:
        while at < end and _kind(text[at]) == kind:
            at += 1
    while at < end and text[at] in _BLANKS:
        if text[at] == "\n" and at + 1 < end and text[at + 1] == "\n":
            return at + 1  # an empty line is a word of its own
        at += 1
    return at


def _previous_word(text: str, at: int) -> int:
    if at <= 0:
        return 0
    at -= 1
    while at > 0 and text[at] in _BLANKS:
        if text[at] == "\n" and text[at - 1] == "\n":
            return at
        at -= 1
    kind = _kind(text[at])
    while at > 0 and _kind(text[at - 1]) == kind:
        at -= 1
    return at


def _word_end(text: str, at: int) -> int:
    last = len(text) - 1
    if at >= last:
        return max(last, 0)
    at += 1
    while at < last and text[at] in _BLANKS:
        at += 1
    kind = _kind(text[at])
    while at < last and _kind(text[at + 1]) == kind:
        at += 1
    return at


def _repeat(step: Callable[[str, int], int], text: str, at: int, count: int) -> int:
    for _ in range(count):
        at = step(text, at)
    return at


@dataclass
class ViMachine:
    """The mode, a command being typed (``pending``), the register and the undo steps."""

    mode: Mode = "insert"
    pending: str = ""
    register: Register = field(default_factory=Register)
    _undo: list[tuple[str, int]] = field(default_factory=list)
    _insert_from: tuple[str, int] | None = ("", 0)
    """The text as INSERT began, when entered with i/a/…: one undo step once Esc ends it."""

    def reset(self, text: str = "") -> None:
        """A prompt emptied or replaced from outside (sent, cleared, recalled): INSERT again,
        nothing to undo into the old text. The register stays."""
        self.mode, self.pending, self._undo, self._insert_from = "insert", "", [], (text, len(text))

    def replaced(self, text: str) -> None:
        """The text was replaced from outside vi (a recalled prompt): the mode stays."""
        self.pending, self._undo = "", []
        self._insert_from = (text, len(text)) if self.mode == "insert" else None

    def escape(self, text: str, cursor: int) -> Edit | None:
        """Esc: INSERT goes to NORMAL (the cursor steps back onto the last character typed);
        in NORMAL it drops a half-typed command. None: Esc is not vi's, the app's Esc runs."""
        if self.mode == "insert":
            if self._insert_from is not None and self._insert_from[0] != text:
                self._remember(*self._insert_from)
            self._insert_from = None
            self.mode = "normal"
            return Edit(text, on_character(text, cursor - 1 if cursor > line_start(text, cursor) else cursor), "normal")
        if self.pending:
            self.pending = ""
            return Edit(text, cursor, "normal")
        return None

    def key(self, character: str, text: str, cursor: int) -> Edit:
        """One character typed in NORMAL; a command still being typed changes nothing yet."""
        self.pending = (self.pending + character)[-16:]
        match = _COMMAND.fullmatch(self.pending)
        unchanged = Edit(text, cursor, "normal")
        if match is None:
            self.pending = ""
            return unchanged
        if match["key"] in _INCOMPLETE:
            return unchanged
        self.pending = ""
        n1, n2 = match["n1"], match["n2"]
        count = min(int(n1 or 1) * int(n2 or 1), MAX_COUNT)
        counted = bool(n1 or n2)
        if match["op"]:
            return self._operate(match["op"], match["key"], text, cursor, count, counted)
        if match["key"] in _MOTIONS:
            return self._move(match["key"], text, cursor, count, counted)
        return self._command(match["key"], text, cursor, count)

    # -- motions ----------------------------------------------------------------------------

    def _lines_away(self, text: str, cursor: int, rows: int) -> int | None:
        """The same column ``rows`` lines down (up when negative); None past either end."""
        starts = _line_starts(text)
        row = text.count("\n", 0, cursor)
        target = row + rows
        if not 0 <= target < len(starts):
            return None
        start = starts[target]
        return min(start + cursor - starts[row], line_end(text, start))

    def _target(
        self, key: str, text: str, at: int, count: int, counted: bool, operator: str = ""
    ) -> tuple[int, MotionKind] | None:
        """Where motion ``key`` goes from ``at``, and how an operator takes the span."""
        start, end = line_start(text, at), line_end(text, at)
        if key == "h":
            return max(start, at - count), "exclusive"
        if key == "l":
            return min(end if operator else max(start, end - 1), at + count), "exclusive"
        if key in ("j", "k"):
            target = self._lines_away(text, at, count if key == "j" else -count)
            return None if target is None else (target, "linewise")
        if key == "w":
            if operator == "c" and at < len(text) and _kind(text[at]):
                return _repeat(_word_end, text, at - 1, count), "inclusive"  # cw changes to the word's end
            before = _repeat(_next_word, text, at, count - 1)
            target = _next_word(text, before)
            newline = text.find("\n", before)
            if operator and before < newline < target:
                target = newline  # dw at a line's last word keeps the line break
            return target, "exclusive"
        if key == "b":
            return _repeat(_previous_word, text, at, count), "exclusive"
        if key == "e":
            return _repeat(_word_end, text, at, count), "inclusive"
        if key == "0":
            return start, "exclusive"
        if key == "^":
            return _first_blank_free(text, start), "exclusive"
        if key == "$":
            down = self._lines_away(text, at, count - 1)
            last = line_end(text, at if down is None else down)
            return max(line_start(text, last), last - 1), "inclusive"
        starts = _line_starts(text)
        row = (count - 1 if counted else 0) if key == "gg" else (count - 1 if counted else len(starts) - 1)
        return _first_blank_free(text, starts[min(row, len(starts) - 1)]), "linewise"

    def _move(self, key: str, text: str, cursor: int, count: int, counted: bool) -> Edit:
        target = self._target(key, text, cursor, count, counted)
        if target is None:
            # j past the last line, k past the first: the history, as Down and Up walk it.
            row, last = text.count("\n", 0, cursor), text.count("\n")
            if (key == "k" and row == 0) or (key == "j" and row == last):
                return Edit(text, cursor, "normal", "previous" if key == "k" else "next")
            target = self._target("G" if key == "j" else "gg", text, cursor, 1, False)
            assert target is not None
            return Edit(text, on_character(text, target[0]), "normal")
        return Edit(text, on_character(text, target[0]), "normal")

    # -- changes ------------------------------------------------------------------------------

    def _remember(self, text: str, cursor: int) -> None:
        self._undo.append((text, cursor))
        del self._undo[:-UNDO_DEPTH]

    def _change(self, before: str, cursor_before: int, text: str, cursor: int, mode: Mode = "normal") -> Edit:
        """An edit made by a command: one undo step; a change that leaves INSERT open
        (c, o, s…) is one step with what is then typed."""
        if text != before or mode == "insert":
            self._remember(before, cursor_before)
        self.mode = mode
        self._insert_from = None
        return Edit(text, cursor if mode == "insert" else on_character(text, cursor), mode)

    def _insert(self, text: str, cursor: int) -> Edit:
        self.mode, self._insert_from = "insert", (text, cursor)
        return Edit(text, cursor, "insert")

    def _operate(self, operator: str, key: str, text: str, cursor: int, count: int, counted: bool) -> Edit:
        if key == operator:
            last = text.count("\n")
            row = text.count("\n", 0, cursor)
            return self._on_lines(operator, text, cursor, row, min(row + count - 1, last))
        if key not in _MOTIONS:
            return Edit(text, cursor, "normal")
        found = self._target(key, text, cursor, count, counted, operator)
        if found is None:
            return Edit(text, cursor, "normal")
        target, kind = found
        if kind == "linewise":
            rows = sorted((text.count("\n", 0, cursor), text.count("\n", 0, target)))
            return self._on_lines(operator, text, cursor, rows[0], rows[1])
        start, end = sorted((cursor, target))
        if kind == "inclusive" and end < line_end(text, end):
            end += 1  # never the line break after it: d$ on an empty line deletes nothing
        return self._on_span(operator, text, cursor, start, end)

    def _on_span(self, operator: str, text: str, cursor: int, start: int, end: int) -> Edit:
        if start == end and operator != "c":
            return Edit(text, cursor, "normal")
        if start < end:
            self.register = Register(text[start:end])
        if operator == "y":
            return Edit(text, on_character(text, start), "normal")
        changed = text[:start] + text[end:]
        return self._change(text, cursor, changed, start, "insert" if operator == "c" else "normal")

    def _on_lines(self, operator: str, text: str, cursor: int, first: int, last: int) -> Edit:
        starts = _line_starts(text)
        start, end = starts[first], line_end(text, starts[last])
        self.register = Register(text[start:end] + "\n", linewise=True)
        if operator == "y":
            return Edit(text, cursor if first == text.count("\n", 0, cursor) else start, "normal")
        if operator == "c":
            return self._change(text, cursor, text[:start] + text[end:], start, "insert")
        if end < len(text):
            changed = text[:start] + text[end + 1 :]
        else:  # the last lines: the line break before them goes
            start = max(start - 1, 0)
            changed = text[:start]
            start = line_start(changed, start)
        return self._change(text, cursor, changed, _first_blank_free(changed, line_start(changed, start)))

    def _paste(self, key: str, text: str, cursor: int, count: int) -> Edit:
        register = self.register
        if not register.text:
            return Edit(text, cursor, "normal")
        chunk = register.text * max(1, min(count, MAX_PASTE // len(register.text)))
        if register.linewise:
            if key == "P":
                at = line_start(text, cursor)
                changed = text[:at] + chunk + text[at:]
            else:
                end = line_end(text, cursor)
                at = end + 1
                changed = text[:end] + "\n" + chunk[:-1] + text[end:]
            return self._change(text, cursor, changed, _first_blank_free(changed, at))
        at = cursor + 1 if key == "p" and cursor < line_end(text, cursor) else cursor
        return self._change(text, cursor, text[:at] + chunk + text[at:], at + len(chunk) - 1)

    def _command(self, key: str, text: str, cursor: int, count: int) -> Edit:
        start, end = line_start(text, cursor), line_end(text, cursor)
        if key == "i":
            return self._insert(text, cursor)
        if key == "a":
            return self._insert(text, min(cursor + 1, end))
        if key == "I":
            return self._insert(text, _first_blank_free(text, start))
        if key == "A":
            return self._insert(text, end)
        if key == "o":
            return self._change(text, cursor, text[:end] + "\n" + text[end:], end + 1, "insert")
        if key == "O":
            return self._change(text, cursor, text[:start] + "\n" + text[start:], start, "insert")
        if key in ("x", "s"):
            return self._on_span("d" if key == "x" else "c", text, cursor, cursor, min(cursor + count, end))
        if key == "X":
            return self._on_span("d", text, cursor, max(start, cursor - count), cursor)
        if key in ("D", "C"):
            return self._operate(key.lower(), "$", text, cursor, count, count > 1)
        if key == "S":
            return self._operate("c", "c", text, cursor, count, count > 1)
        if key in ("p", "P"):
            return self._paste(key, text, cursor, count)
        if key == "u":
            if not self._undo:
                return Edit(text, cursor, "normal")
            before, at = self._undo.pop()
            return Edit(before, on_character(before, at), "normal")
        if key.startswith("r") and len(key) == 2 and cursor + count <= end and key[1] != "\n":
            changed = text[:cursor] + key[1] * count + text[cursor + count :]
            return self._change(text, cursor, changed, cursor + count - 1)
        return Edit(text, cursor, "normal")
