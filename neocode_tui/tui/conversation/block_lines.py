"""The conversation as one list of lines: blocks in order, each rendered into its own lines.

This is the bookkeeping behind the view's Line API: which block a line belongs to (a bisect
over block start lines), which blocks must be drawn again, and where the first changed line
is. Start lines are recomputed only from the first block that changed, which during streaming
is one of the last few, so keeping them costs nothing per frame however long the session.

Rendered lines are held only for the blocks drawn most recently (``RESIDENT_LINES`` lines in
all, the viewport's always among them): a block keeps just its height when its lines are let
go, and is rendered again when it comes back into view. A block never rendered counts its
estimated height, corrected when it is first drawn. So memory and work follow what is on the
screen, not the length of the session.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

from rich.console import Console
from rich.segment import Segment
from rich.style import Style

from neocode_tui.tui.conversation.blocks import Block
from neocode_tui.tui.conversation.palette import Palette

Env = tuple[int, Palette]
"""What every rendered line depends on besides its block: the width and the colours."""

_NO_STYLE = Style.null()
"""The style Rich's ``Padding`` draws a margin and pads lines in; an indented block's too."""

RESIDENT_LINES = 4_000
"""Rendered lines held at most (a few MB), besides those of the blocks in view."""


class BlockLines:
    """Blocks in order, their rendered lines (for the blocks near the viewport), and the
    start line of each."""

    def __init__(self, budget: int = RESIDENT_LINES) -> None:
        self.budget = budget
        """Rendered lines held at most, besides those of the blocks in view."""
        self.blocks: list[Block] = []
        self._starts: list[int] = [0]
        """``_starts[i]`` is the first line of block ``i``; right for ``i <= _valid``."""
        self._valid = 0
        self.dirty: dict[Block, None] = {}
        """Blocks whose content changed since they were last rendered, in no particular order."""
        self._resident: dict[Block, None] = {}
        """Blocks holding rendered lines, least recently drawn first."""
        self._resident_lines = 0

    def clear(self) -> None:
        self.blocks.clear()
        self.dirty.clear()
        self._resident.clear()
        self._resident_lines = 0
        self._starts = [0]
        self._valid = 0

    @property
    def total(self) -> int:
        return self._starts[-1]

    def start(self, index: int) -> int:
        return self._starts[index]

    @property
    def resident_lines(self) -> int:
        """How many rendered lines are held now."""
        return self._resident_lines

    # --- the assembler's sink -------------------------------------------------------------

    def index(self, block: Block) -> int:
        """Where ``block`` is; searched from the end, where changing blocks live."""
        blocks = self.blocks
        for index in range(len(blocks) - 1, -1, -1):
            if blocks[index] is block:
                return index
        raise ValueError("block not in view")

    def invalidate(self, index: int) -> None:
        self._valid = min(self._valid, index)

    def append(self, block: Block, *, render: bool = True) -> None:
        """Add ``block`` at the end; ``render=False`` leaves it to be drawn when it comes into view."""
        self.blocks.append(block)
        self.invalidate(len(self.blocks) - 1)
        if render:
            self.dirty[block] = None

    def insert_before(self, anchor: Block, block: Block) -> None:
        index = self.index(anchor)
        self.blocks.insert(index, block)
        self.invalidate(index)
        self.dirty[block] = None

    def remove(self, block: Block) -> None:
        index = self.index(block)
        del self.blocks[index]
        self.invalidate(index)
        self.dirty.pop(block, None)
        self._release(block)

    def touch(self, block: Block) -> None:
        self.dirty[block] = None

    def remove_attempt(self, attempt: object) -> None:
        first = next((i for i, block in enumerate(self.blocks) if block.attempt is attempt), None)
        if first is None:
            return
        for block in self.blocks[first:]:
            if block.attempt is attempt:
                self._release(block)
        self.blocks = [block for block in self.blocks if block.attempt is not attempt]
        self.invalidate(first)
        self.dirty = {block: None for block in self.dirty if block.attempt is not attempt}

    # --- rendering --------------------------------------------------------------------------

    @staticmethod
    def holds(block: Block, env: Env) -> bool:
        """``block`` holds its lines as they are drawn for ``env`` now."""
        return block.lines is not None and block.render_key == _key(block, env)

    def render(self, block: Block, env: Env, console: Console) -> bool:
        """Make sure ``block`` holds its lines for ``env``; True if its height may have changed."""
        width, palette = env
        key = _key(block, env)
        if block.render_key == key and block.lines is not None:
            self._resident[block] = self._resident.pop(block)  # drawn again: the newest
            return False
        measured = block.render_key is not None and _same_shape(block.render_key, key)
        lines = _render_lines(block, palette, width, console)
        self._release(block)
        block.render_key = key
        block.lines = lines
        block.height = len(lines)
        self._resident[block] = None
        self._resident_lines += len(lines)
        return not measured

    def render_dirty(self, env: Env, console: Console) -> None:
        """Render the changed blocks that hold lines or were never drawn (the new ones); any
        other changed block only loses its measured height, and is drawn when seen."""
        if not self.dirty:
            return
        positions = self._positions(self.dirty)
        for block, index in positions.items():
            if block.lines is not None or block.render_key is None:
                self.render(block, env, console)
            self.invalidate(index)
        self.dirty.clear()

    def _positions(self, wanted: Iterable[Block]) -> dict[Block, int]:
        """Where each of ``wanted`` is, by one pass from the end (they are mostly near it)."""
        missing = dict.fromkeys(wanted)
        found: dict[Block, int] = {}
        blocks = self.blocks
        for index in range(len(blocks) - 1, -1, -1):
            block = blocks[index]
            if block in missing:
                found[block] = index
                del missing[block]
                if not missing:
                    break
        return found

    def trim(self, keep: range) -> None:
        """Let go of the lines of the blocks drawn longest ago, down to the budget; the
        blocks at ``keep`` (the viewport and its surroundings) hold theirs."""
        if self._resident_lines <= self.budget:
            return
        kept = {id(self.blocks[index]) for index in keep if index < len(self.blocks)}
        for block in list(self._resident):
            if self._resident_lines <= self.budget:
                break
            if id(block) not in kept and block not in self.dirty:
                self._release(block)

    def _release(self, block: Block) -> None:
        if block in self._resident:
            del self._resident[block]
            self._resident_lines -= block.height
        block.lines = None

    def height(self, block: Block, width: int) -> int:
        """Its rendered height at ``width``, or its estimate before it has been rendered so."""
        key = block.render_key
        if key is not None and key[0] == width and key[2] == block.version and key[3] == block.collapsed:
            return block.height
        return block.estimate(width) + block.gap_after

    def recompute(self, width: int) -> int | None:
        """Bring start lines up to date; the first line that may have changed, or None."""
        starts = self._starts
        valid = self._valid
        if valid == len(self.blocks) and len(starts) == valid + 1:
            return None
        first_changed = starts[valid]
        del starts[valid + 1 :]
        total = starts[valid]
        height = self.height
        for block in self.blocks[valid:]:
            total += height(block, width)
            starts.append(total)
        self._valid = len(self.blocks)
        return first_changed

    @property
    def up_to_date(self) -> bool:
        return self._valid == len(self.blocks)

    def block_at(self, line: int) -> int:
        return min(bisect_right(self._starts, line) - 1, len(self.blocks) - 1)

    def line(self, line: int) -> list[Segment] | None:
        """The segments of one line, or None past the end, in a block not drawn yet, or
        while start lines are stale."""
        if not self.blocks or line >= self._starts[-1] or not self.up_to_date:
            return None
        index = self.block_at(line)
        lines = self.blocks[index].lines
        offset = line - self._starts[index]
        return lines[offset] if lines is not None and offset < len(lines) else None

    def text(self, first: int, last: int, env: Env, console: Console) -> str:
        """Lines ``first`` to ``last`` (inclusive) as plain text, one per line (what a
        selection is cut from); blocks not held are rendered for it and let go again."""
        if not self.blocks or first > last:
            return ""
        texts: list[str] = []
        width, palette = env
        begin = self.block_at(first)
        end = self.block_at(last)
        for index in range(begin, end + 1):
            block = self.blocks[index]
            height = self.height(block, width)
            lines = block.lines
            if lines is None or not _same_shape(block.render_key or (), _key(block, env)):
                lines = _render_lines(block, palette, width, console)
            rendered = ["".join(segment.text for segment in line).rstrip() for line in lines[:height]]
            texts.extend(rendered + [""] * (height - len(rendered)))
        skip = first - self._starts[begin]
        return "\n".join(texts[skip : skip + last - first + 1])


def _key(block: Block, env: Env) -> tuple[object, ...]:
    width, palette = env
    return (width, palette, block.version, block.collapsed)


def _same_shape(old: tuple[object, ...], new: tuple[object, ...]) -> bool:
    """Rendered for the same width, content and folding: the same lines but for colours."""
    return len(old) == len(new) and old[0] == new[0] and old[2:] == new[2:]


def _render_lines(block: Block, palette: Palette, width: int, console: Console) -> list[list[Segment]]:
    renderable = block.renderable(palette)
    if renderable is None:
        return []
    indent = block.indent
    options = console.options.update(width=width - indent, height=None, highlight=False)
    with console.use_theme(palette.rich_theme):
        if indent:
            lines = console.render_lines(renderable, options, style=_NO_STYLE, pad=True)
            margin = Segment(" " * indent, _NO_STYLE)
            lines = [[margin, *line] for line in lines]
        else:
            lines = console.render_lines(renderable, options, pad=False)
    if block.trim_top:
        while lines and not any(segment.text.strip() for segment in lines[0]):
            del lines[0]
    if block.gap_after:
        lines.append([])
    return lines
