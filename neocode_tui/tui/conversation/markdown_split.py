"""Cuts a streaming Markdown answer into pieces that will never change again.

A top-level block is settled once a later top-level block has started on a complete line:
CommonMark closes a block for good when another one begins. Settled pieces are rendered once;
only the text after them, the open tail, is parsed and drawn again as deltas arrive.

A fenced code block can be long (a whole file), so it is cut too: every ``CODE_CHUNK_LINES``
complete lines of code become a piece of their own while the fence is still open, and the
fence's lines are scanned once for the closing marker rather than re-parsed every frame. Each
chunk is highlighted on its own (a string spanning two chunks is coloured per chunk).

The cut points depend only on the text, never on how it was chunked, so an answer streamed in
thousands of deltas ends as exactly the same pieces as the same answer arriving in one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it.token import Token

CODE_CHUNK_LINES = 40

_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")
_OPENER = re.compile(r"(?:[ \t]*\n)*( {0,3})(`{3,}|~{3,})([^\n]*)\n")


@dataclass(frozen=True)
class CodeChunk:
    """Up to ``CODE_CHUNK_LINES`` lines of a top-level fenced code block."""

    language: str
    code: str
    first: bool
    last: bool


Piece = str | CodeChunk
"""A settled top-level Markdown block (its source text), or a chunk of a fenced code block."""


def block_starts(text: str) -> list[tuple[int, str]]:
    """Where the top-level blocks of ``text`` start (character offset) and their token type."""
    # markdown-it loads with the first answer, not at start-up (about 20 ms).
    from neocode_tui.tui.conversation.markdown import PARSER

    tokens: list[Token] = []
    PARSER.block.parse(text, PARSER, {}, tokens)
    found = [(t.map[0], t.type) for t in tokens if t.level == 0 and t.map and t.nesting >= 0]
    starts: list[tuple[int, str]] = []
    line = 0
    position = 0
    for wanted, kind in found:
        while line < wanted:
            position = text.index("\n", position) + 1
            line += 1
        if not starts or starts[-1][0] != position:
            starts.append((position, kind))
    return starts


def _is_closing(line: str, marker: str) -> bool:
    stripped = line.rstrip("\n").rstrip(" \t")
    body = stripped.lstrip(" ")
    return (
        len(stripped) - len(body) <= 3
        and len(body) >= len(marker)
        and body == marker[0] * len(body)
    )


@dataclass
class _Fence:
    """An open top-level fence: its marker, language and the code lines not yet cut off."""

    marker: str
    language: str
    lines: list[str] = field(default_factory=list)
    chunks: int = 0

    def cut(self, last: bool) -> CodeChunk:
        code = "".join(self.lines)
        chunk = CodeChunk(self.language, code, first=self.chunks == 0, last=last)
        self.lines = []
        self.chunks += 1
        return chunk

    def take(self, lines: list[str]) -> tuple[list[CodeChunk], int | None]:
        """Add complete lines; return the chunks they fill and the index of the closing line."""
        chunks: list[CodeChunk] = []
        for number, line in enumerate(lines):
            if _is_closing(line, self.marker):
                chunks.append(self.cut(last=True))
                return chunks, number
            self.lines.append(line)
            if len(self.lines) == CODE_CHUNK_LINES:
                chunks.append(self.cut(last=False))
        return chunks, None


def _open_fence(text: str) -> tuple[_Fence, int] | None:
    """The fence opened by ``text``'s first block, and where its code starts."""
    match = _OPENER.match(text)
    if match is None:
        return None
    _, marker, info = match.groups()
    return _Fence(marker, info.strip().split(" ")[0] if info.strip() else "text"), match.end()


def _pieces(block: str, kind: str) -> list[Piece]:
    """A settled top-level block as pieces: fences are cut into chunks, the rest stays whole."""
    opened = _open_fence(block) if kind == "fence" else None
    if opened is None:
        return [_BLANK_LINES.sub("", block, count=1)]
    fence, start = opened
    lines = block[start:].splitlines(keepends=True)
    chunks, closing = fence.take(lines)
    if closing is None:  # the message ended inside the fence
        chunks.append(fence.cut(last=True))
    return list(chunks)


def split_blocks(text: str) -> list[Piece]:
    """All of ``text`` as pieces (the open tail too): the end of a message."""
    starts = block_starts(text)
    if not starts:
        return [_BLANK_LINES.sub("", text, count=1)] if text.strip() else []
    starts[0] = (0, starts[0][1])  # leading blank lines belong to the first block
    ends = [start for start, _ in starts[1:]] + [len(text)]
    pieces: list[Piece] = []
    for (start, kind), end in zip(starts, ends, strict=True):
        pieces += _pieces(text[start:end], kind)
    return pieces


class MarkdownSplitter:
    """Accumulates deltas; hands out settled pieces; keeps the open tail."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._tail = ""
        self._fence: _Fence | None = None
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
        """The open text after the settled pieces (inside an open fence: its uncut code)."""
        if self._parts:
            self._tail += "".join(self._parts)
            self._parts.clear()
        return self._tail

    def open_code(self) -> CodeChunk | None:
        """While a fence is open: its code not yet cut into chunks, as the chunk it will end."""
        fence = self._fence
        if fence is None:
            return None
        return CodeChunk(fence.language, "".join(fence.lines) + self.tail, fence.chunks == 0, True)

    def settle(self) -> list[Piece]:
        """Pieces that became final since the last call (looked for only when a line completed)."""
        if not self._newline_pending:
            return []
        self._newline_pending = False
        pieces: list[Piece] = []
        while True:
            if self._fence is not None:
                pieces += self._advance_fence()
                if self._fence is not None:
                    return pieces
            tail = self.tail
            complete = tail[: tail.rfind("\n") + 1]
            starts = block_starts(complete)
            if len(starts) >= 2:
                starts[0] = (0, starts[0][1])
                for (start, kind), (end, _) in zip(starts, starts[1:], strict=False):
                    pieces += _pieces(complete[start:end], kind)
                tail = self._tail = tail[starts[-1][0] :]
            if not starts or starts[-1][1] != "fence":
                return pieces
            opened = _open_fence(tail)
            if opened is None:
                return pieces
            self._fence, start = opened
            self._tail = tail[start:]

    def _advance_fence(self) -> list[CodeChunk]:
        """Take the open fence's newly completed lines; close it at its closing marker."""
        fence = self._fence
        assert fence is not None
        tail = self.tail
        complete = tail.rfind("\n") + 1
        lines = tail[:complete].splitlines(keepends=True)
        chunks, closing = fence.take(lines)
        if closing is None:
            self._tail = tail[complete:]
        else:
            self._fence = None
            self._tail = "".join(lines[closing + 1 :]) + tail[complete:]
        return chunks

    def finish(self) -> list[Piece]:
        """The end of the segment: everything left, as pieces."""
        self._newline_pending = True
        pieces = self.settle()
        fence = self._fence
        if fence is not None:  # the message ended inside the fence, perhaps on its closing marker
            tail = self.tail
            if tail and not _is_closing(tail, fence.marker):
                fence.lines.append(tail)
            pieces.append(fence.cut(last=True))
            self._fence = None
        else:
            pieces += split_blocks(self.tail)
        self._tail = ""
        return pieces
