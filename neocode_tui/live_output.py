"""A running command's output, live, at a cost linear in what it prints and bounded in memory.

A command can print megabytes, and all on one line: ``LineCap`` passes its output on whole
lines at a time (so each can be redacted whole) with every line cut to ``LINE_CAP``
characters and a marker saying how much was cut; only the new text is ever looked at, so
one long line costs what the same bytes in many lines cost. ``LiveTail`` is what a screen
keeps of that: the last few lines, each piece of output counted (``str.count``) and only
its last lines looked at, a line longer than a panel cut on arrival. Neither imports
Textual: the app and ``neocode acp`` show them alike.
"""

from __future__ import annotations

import re
from collections import deque

LIVE_OUTPUT_LINES = 10
"""How many of the latest output lines a running command's panel shows."""
KEPT_OUTPUT_LINES = 200
"""How many of its last lines a command stopped part way keeps in the session: as many as
an editor's panel shows live, so every front end can show again what it showed."""
MAX_LINE_CHARS = 500
"""Characters kept of one line: more than any panel is wide, so cutting them never shows."""


LINE_CAP = 2_000
"""Characters of one line passed on live: more than an editor or a panel shows of it."""
_LINE_END = re.compile(r"\r\n?|\n")


class LineCap:
    """Output in, its ended lines out (a carriage return ends one too: a progress bar's
    redraw), each cut to ``cap`` characters; the line still open is held back, only its
    first ``cap`` characters kept, the rest counted."""

    def __init__(self, cap: int = LINE_CAP) -> None:
        self.cap = cap
        self._open = ""
        self._dropped = 0

    def feed(self, text: str) -> str:
        """The lines ``text`` ended, cut; "" while it only adds to the open line."""
        cut = max(text.rfind("\n"), text.rfind("\r")) + 1
        if not cut:
            self._hold(text)
            return ""
        first = _LINE_END.search(text)
        assert first is not None
        self._hold(text[: first.start()])
        lines = [self._open, _more(self._dropped), first.group()]
        if cut - first.end() > self.cap:
            lines += [self._cut(line) for line in text[first.end() : cut].splitlines(True)]
        else:
            lines.append(text[first.end() : cut])
        self._open, self._dropped = "", 0
        self._hold(text[cut:])
        return "".join(lines)

    def _hold(self, text: str) -> None:
        room = self.cap - len(self._open)
        if room > 0:
            self._open += text[:room]
        self._dropped += max(len(text) - max(room, 0), 0)

    def _cut(self, line: str) -> str:
        body = line.rstrip("\r\n")
        if len(body) <= self.cap:
            return line
        return body[: self.cap] + _more(len(body) - self.cap) + line[len(body) :]


def _more(count: int) -> str:
    return f" [… {count:,} more characters of this line]" if count else ""


def _shown(line: str) -> str:
    """What a terminal would show of a line: a carriage return (a progress bar redrawing
    itself) starts it over; a CRLF line ending is no redraw."""
    line = line.removesuffix("\r")
    return line.rsplit("\r", 1)[-1][:MAX_LINE_CHARS]


class LiveTail:
    """The last ``keep`` lines seen, the line still being written, and how many came before."""

    def __init__(self, keep: int = LIVE_OUTPUT_LINES) -> None:
        self.keep = keep
        self._lines: deque[str] = deque(maxlen=keep)
        self._open = ""
        self.ended_lines = 0
        """Complete lines seen so far (every one, not only those kept)."""

    def feed(self, text: str) -> None:
        newlines = text.count("\n")
        if not newlines:
            self._open = self._open_part(self._open + text)
            return
        self.ended_lines += newlines
        start = len(text)
        for _ in range(min(newlines, self.keep) + 1):  # back to the start of the last lines only
            start = text.rfind("\n", 0, start)
            if start < 0:
                break
        if start < 0:
            text = self._open + text
        else:
            text = text[start + 1 :]
            self._lines.clear()
        *ended, self._open = text.split("\n")
        self._lines.extend(_shown(line) for line in ended)
        self._open = self._open_part(self._open)

    @staticmethod
    def _open_part(line: str) -> str:
        """An unfinished line is kept short too: from its last redraw on, cut."""
        redraw = line.rfind("\r", 0, len(line) - 1)
        if redraw >= 0:
            line = line[redraw:]
        return line[: 2 * MAX_LINE_CHARS]

    @classmethod
    def saved(cls, lines: list[str], hidden: int, keep: int = LIVE_OUTPUT_LINES) -> LiveTail:
        """A tail as a session kept it: ``lines`` (already cut), after ``hidden`` others."""
        tail = cls(keep)
        tail.feed("".join(f"{line}\n" for line in lines))
        tail.ended_lines += hidden
        return tail

    @property
    def lines(self) -> list[str]:
        """The lines to show, oldest first: the kept ones and the open one if it has text."""
        shown = list(self._lines)
        if self._open:
            shown.append(_shown(self._open))
        return shown[-self.keep :]

    @property
    def total_lines(self) -> int:
        return self.ended_lines + (1 if self._open else 0)

    @property
    def hidden(self) -> int:
        """Lines printed above those shown."""
        return self.total_lines - len(self.lines)
