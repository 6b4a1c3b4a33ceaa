"""The conversation as one list of lines: blocks in order, each rendered into its own lines.

This is the bookkeeping behind the view's Line API: which block a line belongs to (a bisect
over block start lines), which blocks must be drawn again, and where the first changed line
is. Start lines are recomputed only from the first block that changed, which during streaming
is one of the last few, so keeping them costs nothing per frame however long the session.
"""

from __future__ import annotations

from bisect import bisect_right

from rich.console import Console
from rich.segment import Segment

from neocode_tui.tui.conversation.blocks import Block
from neocode_tui.tui.conversation.palette import Palette

Env = tuple[int, Palette]
"""What every rendered line depends on besides its block: the width and the colours."""


class BlockLines:
    """Blocks in order, their rendered lines, and the start line of each."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self._starts: list[int] = [0]
        """``_starts[i]`` is the first line of block ``i``; right for ``i <= _valid``."""
        self._valid = 0
        self.dirty: dict[Block, None] = {}
        """Blocks whose content changed since they were last rendered, in no particular order."""
        self.stale = False
        """Some blocks were rendered for another width or theme (or never): redraw in the background."""

    def clear(self) -> None:
        self.blocks.clear()
        self.dirty.clear()
        self._starts = [0]
        self._valid = 0
        self.stale = False

    @property
    def total(self) -> int:
        return self._starts[-1]

    def start(self, index: int) -> int:
        return self._starts[index]

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
        self.blocks.append(block)
        self.invalidate(len(self.blocks) - 1)
        if render:
            self.dirty[block] = None
        else:
            self.stale = True  # drawn in the background, nearest the viewport first

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

    def touch(self, block: Block) -> None:
        self.dirty[block] = None

    def remove_attempt(self, attempt: object) -> None:
        first = next((i for i, block in enumerate(self.blocks) if block.attempt is attempt), None)
        if first is None:
            return
        self.blocks = [block for block in self.blocks if block.attempt is not attempt]
        self.invalidate(first)
        self.dirty = {block: None for block in self.dirty if block.attempt is not attempt}

    # --- rendering --------------------------------------------------------------------------

    @staticmethod
    def render(block: Block, env: Env, console: Console) -> bool:
        """Render ``block`` for ``env`` unless its lines are already right; True if rendered."""
        width, palette = env
        key = (width, palette, block.version, block.collapsed)
        if block.render_key == key:
            return False
        block.render_key = key
        renderable = block.renderable(palette)
        if renderable is None:
            block.lines = []
            return True
        options = console.options.update(width=width, height=None, highlight=False)
        with console.use_theme(palette.rich_theme):
            lines = console.render_lines(renderable, options, pad=False)
        if block.trim_top:
            while lines and not any(segment.text.strip() for segment in lines[0]):
                del lines[0]
        if block.gap_after:
            lines.append([])
        block.lines = lines
        return True

    def render_dirty(self, env: Env, console: Console) -> None:
        for block in self.dirty:
            self.render(block, env, console)
            self.invalidate(self.index(block))
        self.dirty.clear()

    @staticmethod
    def is_current(block: Block, env: Env) -> bool:
        return block.render_key is not None and block.render_key[:2] == env

    def height(self, block: Block, width: int) -> int:
        if block.render_key is None:
            return block.estimate(width) + 1
        return len(block.lines)

    def recompute(self, width: int) -> int | None:
        """Bring start lines up to date; the first line that may have changed, or None."""
        starts = self._starts
        valid = self._valid
        if valid == len(self.blocks) and len(starts) == valid + 1:
            return None
        first_changed = starts[valid]
        del starts[valid + 1 :]
        total = starts[valid]
        for block in self.blocks[valid:]:
            total += self.height(block, width)
            starts.append(total)
        self._valid = len(self.blocks)
        return first_changed

    @property
    def up_to_date(self) -> bool:
        return self._valid == len(self.blocks)

    def block_at(self, line: int) -> int:
        return min(bisect_right(self._starts, line) - 1, len(self.blocks) - 1)

    def line(self, line: int) -> list[Segment] | None:
        """The segments of one line, or None past the end (or while start lines are stale)."""
        if not self.blocks or line >= self._starts[-1] or not self.up_to_date:
            return None
        index = self.block_at(line)
        lines = self.blocks[index].lines
        offset = line - self._starts[index]
        return lines[offset] if offset < len(lines) else None

    def text(self, width: int) -> str:
        """Every line as plain text, one per line (what a selection is cut from)."""
        texts: list[str] = []
        for block in self.blocks:
            height = self.height(block, width)
            rendered = ["".join(segment.text for segment in line).rstrip() for line in block.lines[:height]]
            texts.extend(rendered + [""] * (height - len(rendered)))
        return "\n".join(texts)
