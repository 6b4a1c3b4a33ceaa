"""A compaction in the conversation: one folded line that says how much it summarised and
how much room it made; unfolded, the summary the model reads from now on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from neocode_tui.terminal_text import visible
from neocode_tui.tui.conversation.blocks import Block
from neocode_tui.tui.conversation.palette import Palette

if TYPE_CHECKING:
    from neocode_tui.agent import Compaction

KEEPS = "The session file keeps the whole history; /uncompact brings it back until you send again."


class CompactionBlock(Block):
    collapsible = True

    def __init__(self, what: Compaction) -> None:
        super().__init__()
        self.what = what
        self.collapsed = True

    def renderable(self, palette: Palette) -> RenderableType:
        from neocode_tui.agent.context import compaction_headline  # here: the first frame loads no core

        what = self.what
        action = "read the summary" if self.collapsed else "fold it"
        strong = f"bold {palette.primary}"
        header = Text.assemble(("⇣ ", strong), (compaction_headline(what), strong),
                               (f", {visible(what.reason)} · {palette.keys.fold_hint} to {action}", palette.muted))
        if self.collapsed:
            return header
        summary = Text(visible(what.summary.strip()), style=palette.foreground)
        return Group(header, Padding(summary, (0, 0, 0, 2)), Text(KEEPS, style=f"italic {palette.muted}"))

    def estimate(self, width: int) -> int:
        if self.collapsed:
            return 1
        return 2 + self.what.summary.count("\n") + 1 + len(self.what.summary) // max(width - 6, 10)
