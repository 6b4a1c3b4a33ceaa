"""Cuts a streaming Markdown answer into blocks that will never change again.

A top-level block is settled once a later top-level block has started on a complete line:
CommonMark closes a block for good when another one begins (a fence stays one open block until
its closing line, however many deltas that takes). Settled blocks are rendered once; only the
text after them, the open tail, is parsed and drawn again as deltas arrive. The cut points
depend only on the text, never on how it was chunked, so an answer streamed in thousands of
deltas ends as exactly the same blocks as the same answer arriving in one.
"""

from __future__ import annotations

from markdown_it.token import Token

from neocode_tui.tui.conversation.markdown import PARSER as _PARSER


def block_starts(text: str) -> list[int]:
    """Character offsets where the top-level blocks of ``text`` start (block grammar only)."""
    tokens: list[Token] = []
    _PARSER.block.parse(text, _PARSER, {}, tokens)
    lines = [token.map[0] for token in tokens if token.level == 0 and token.map and token.nesting >= 0]
    if not lines:
        return []
    offsets: list[int] = []
    line = 0
    position = 0
    for wanted in lines:
        while line < wanted:
            position = text.index("\n", position) + 1
            line += 1
        if not offsets or offsets[-1] != position:
            offsets.append(position)
    return offsets


def split_blocks(text: str) -> list[str]:
    """All of ``text`` as top-level blocks (the open tail too): the end of a message."""
    starts = block_starts(text)
    if not starts:
        return [text] if text.strip() else []
    starts[0] = 0  # leading blank lines belong to the first block
    ends = starts[1:] + [len(text)]
    return [text[start:end] for start, end in zip(starts, ends)]


class MarkdownSplitter:
    """Accumulates deltas; hands out settled blocks; keeps the open tail."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._tail = ""
        self._newline_pending = False
        self.revision = 0
        """Bumped whenever the open tail changes, so a view redraws it only then."""

    def append(self, text: str) -> None:
        if text:
            self._parts.append(text)
            self._newline_pending = self._newline_pending or "\n" in text
            self.revision += 1

    @property
    def tail(self) -> str:
        """The open text after the settled blocks."""
        if self._parts:
            self._tail += "".join(self._parts)
            self._parts.clear()
        return self._tail

    def settle(self) -> list[str]:
        """Blocks that became final since the last call (looked for only when a line completed)."""
        if not self._newline_pending:
            return []
        self._newline_pending = False
        tail = self.tail
        complete = tail[: tail.rfind("\n") + 1]
        starts = block_starts(complete)
        if len(starts) < 2:
            return []
        starts[0] = 0
        blocks = [complete[start:end] for start, end in zip(starts, starts[1:])]
        self._tail = tail[starts[-1] :]
        return blocks

    def finish(self) -> list[str]:
        """The end of the segment: everything left, as blocks."""
        blocks = self.settle() + split_blocks(self.tail)
        self._tail = ""
        return blocks
