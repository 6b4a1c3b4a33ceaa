"""``todo_write`` in the conversation: one short line, since the pinned task list above the
input is its view (a panel of the list's raw items would say the same thing worse)."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from neocode_tui.terminal_text import visible
from neocode_tui.tui.conversation.blocks import ToolBlock
from neocode_tui.tui.conversation.palette import Palette

_UPDATED = "The task list is updated: "


class TodoLine(ToolBlock):
    """The call's one line: being written, what the list now counts, or why it was not set."""

    def renderable(self, palette: Palette) -> RenderableType:
        style = f"italic {palette.muted}"
        if self.result is None:
            return Text("☰ updating the task list…", style=style)
        if self.status != "ok":
            first = self.result.strip().splitlines()[0] if self.result.strip() else self.status
            return Text(f"✗ the task list was not updated: {visible(first)}", style=palette.error)
        counts = self.result.removeprefix(_UPDATED).strip().rstrip(".")
        return Text(f"☰ task list: {visible(counts)}", style=style)

    @property
    def can_collapse(self) -> bool:
        return False

    def estimate(self, width: int) -> int:
        return 1
