"""The latest lines of a running command's output, at a fixed cost however much it prints.

A command can print megabytes; the panel shows only its last few lines while it runs. So
nothing here keeps more than those lines: each piece of output is counted (``str.count``)
and only its last lines are looked at, and a line longer than the panel is cut on arrival.
"""

from __future__ import annotations

from collections import deque

LIVE_OUTPUT_LINES = 10
"""How many of the latest output lines a running command's panel shows."""
MAX_LINE_CHARS = 500
"""Characters kept of one line: more than any panel is wide, so cutting them never shows."""


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
