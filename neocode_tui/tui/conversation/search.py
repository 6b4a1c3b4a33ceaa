"""Searching the whole conversation: prompts, answers, thinking, tool calls and their output.

Blocks are searched in their own text (what the model or the tool wrote, folded parts too),
case-insensitively, so a search costs one pass over the conversation's characters and never
renders a block it does not land on. A jump lands on a block: folded, it is unfolded; its
rendered lines are then searched for the query's line, which is scrolled into view and
marked. ``n`` goes back in time (up), ``N`` forward; both wrap around. The position is a
block and a line in it, so a jump to a prompt (Up/Down in the search bar) is where the
next match is looked for from.
"""

from __future__ import annotations

import weakref
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from neocode_tui.tui.conversation.blocks import (
    Block,
    MarkdownBlock,
    NoticeBlock,
    ReasoningBlock,
    RefusalBlock,
    ToolBlock,
    UserBlock,
)


class SearchHost(Protocol):
    """The view, as the search sees it."""

    @property
    def blocks(self) -> list[Block]: ...

    def plain_lines(self, block: Block) -> list[str]:
        """``block``'s lines as drawn now (rendering it if it is not held)."""

    def unfold(self, block: Block) -> None:
        """Unfold ``block`` if it is folded."""

    def reveal(self, block: Block, line: int) -> None:
        """Scroll so that line ``line`` of ``block`` is in view."""

    def marks_changed(self) -> None: ...


@dataclass(frozen=True)
class Found:
    """Where the search stands, for the bar to say."""

    query: str
    matches: int
    """Occurrences in the whole conversation."""
    blocks: int
    """Blocks holding them."""
    at: int | None
    """The position of the block landed on among those (1 is the newest), None before a jump."""


def searchable(block: Block) -> str:
    """What a search finds in ``block``: its text as written, folded parts included."""
    if isinstance(block, UserBlock):
        return block.text
    if isinstance(block, MarkdownBlock):
        piece = block.piece
        return piece if isinstance(piece, str) else piece.code
    if isinstance(block, (ReasoningBlock, RefusalBlock)):
        return block.text.text
    if isinstance(block, NoticeBlock):
        return block.message
    if isinstance(block, ToolBlock):
        output = block.result if block.result is not None else "\n".join(block.output.lines if block.output else ())
        return f"{block.name} {block.raw.text}\n{block.diff or ''}\n{output}"
    return ""


class TranscriptFinder:
    def __init__(self, host: SearchHost) -> None:
        self._host = host
        self.query = ""
        self._folded: weakref.WeakKeyDictionary[Block, tuple[int, str]] = weakref.WeakKeyDictionary()
        self._at: tuple[Block, int] | None = None
        """The block and line landed on."""

    @property
    def active(self) -> bool:
        return bool(self.query)

    def search(self, query: str) -> Found:
        """A new query: nothing is jumped to until ``step``."""
        self.query = query.casefold()
        self._at = None
        self._host.marks_changed()
        return self.found()

    def close(self) -> None:
        self.query = ""
        self._at = None
        self._host.marks_changed()

    def found(self) -> Found:
        blocks, hits = self._host.blocks, self._hits()
        place = None
        if self._at is not None:
            index = self._index(self._at[0], blocks)
            spot = bisect_left(hits, index)
            place = len(hits) - spot if spot < len(hits) and hits[spot] == index else None
        matches = sum(self._text(blocks[index]).count(self.query) for index in hits)
        return Found(self.query, matches, len(hits), place)

    def step(self, direction: int) -> Found:
        """To the next match up (``direction`` -1: older) or down (1), wrapping around."""
        blocks, hits = self._host.blocks, self._hits()
        if not hits:
            return self.found()
        start = len(blocks)
        if self._at is not None:
            block, line = self._at
            start = self._index(block, blocks)
            if start in hits:
                further = [n for n in self._lines_of(block) if (n - line) * direction > 0]
                if further:
                    self._land(block, further[0] if direction > 0 else further[-1])
                    return self.found()
        if direction > 0:
            spot = bisect_right(hits, start)
            target = blocks[hits[spot] if spot < len(hits) else hits[0]]
        else:
            spot = bisect_left(hits, start)
            target = blocks[hits[spot - 1] if spot > 0 else hits[-1]]
        self._host.unfold(target)  # a match in a folded part is shown
        lines = self._lines_of(target)
        self._land(target, (lines[0] if direction > 0 else lines[-1]) if lines else 0)
        return self.found()

    def prompt(self, direction: int) -> Found:
        """To the prompt before (``direction`` -1) or after (1) where the search stands."""
        blocks = self._host.blocks
        start = self._index(self._at[0], blocks) if self._at is not None else len(blocks)
        indices = range(start + 1, len(blocks)) if direction > 0 else range(start - 1, -1, -1)
        target = next((index for index in indices if isinstance(blocks[index], UserBlock)), None)
        if target is not None:
            self._land(blocks[target], 0)
        return self.found()

    def current_line(self, block: Block) -> int | None:
        """The line of ``block`` landed on, if it is the block landed on."""
        at = self._at
        return at[1] if at is not None and at[0] is block else None

    def mark(self, segments: list[Segment], current: bool, style: Style, current_style: Style) -> list[Segment]:
        """``segments`` with each occurrence of the query marked (``current``: the line
        landed on, marked apart)."""
        text = "".join(segment.text for segment in segments)
        spans = list(_spans(text, self.query))
        if not spans:
            return segments
        return list(restyled(Strip(segments), spans, current_style if current else style))

    def _land(self, block: Block, line: int) -> None:
        self._at = (block, line)
        self._host.reveal(block, line)
        self._host.marks_changed()

    def _hits(self) -> list[int]:
        """The indices of the blocks holding the query, in order."""
        query = self.query
        if not query:
            return []
        return [index for index, block in enumerate(self._host.blocks) if query in self._text(block)]

    def _text(self, block: Block) -> str:
        kept = self._folded.get(block)
        if kept is None or kept[0] != block.version:
            kept = (block.version, searchable(block).casefold())
            self._folded[block] = kept
        return kept[1]

    def _lines_of(self, block: Block) -> list[int]:
        query = self.query
        return [n for n, line in enumerate(self._host.plain_lines(block)) if query in line.casefold()]

    @staticmethod
    def _index(block: Block, blocks: list[Block]) -> int:
        for index in range(len(blocks) - 1, -1, -1):
            if blocks[index] is block:
                return index
        return len(blocks)


def _spans(text: str, query: str) -> Iterator[tuple[int, int]]:
    """The cells each occurrence of ``query`` covers in ``text``."""
    folded = text.casefold()
    if not query or len(folded) != len(text):
        return  # a character that folds to several: no cell positions to mark by
    start = folded.find(query)
    while start >= 0:
        begin = cell_len(text[:start])
        yield begin, begin + cell_len(text[start:start + len(query)])
        start = folded.find(query, start + len(query))


def restyled(strip: Strip, spans: list[tuple[int, int]], style: Style) -> Strip:
    """``strip`` with the cells of each of ``spans`` (start, end; in order) in ``style`` too."""
    length = strip.cell_length
    parts, end = [], 0
    for start, stop in spans:
        start, stop = max(start, end), min(stop, length)
        if start >= stop:
            continue
        parts += [strip.crop(end, start), Strip(Segment.apply_style(strip.crop(start, stop), post_style=style))]
        end = stop
    if not parts:
        return strip
    parts.append(strip.crop(end, length))
    return Strip.join(parts)
