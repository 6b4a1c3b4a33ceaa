"""The panel of a ``task`` call: a subagent at work, then its answer.

While the child works the panel shows what it is doing (the tool it started last and the
latest line of its text) and how many tools it used; once it is done the panel folds to the
child's answer, and unfolds (Ctrl+T, Ctrl+O, a click) to the child's whole transcript.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from neocode_tui.terminal_text import visible
from neocode_tui.tui.conversation.blocks import _STATUS, COLLAPSED_LINES, ToolBlock, _estimate_text
from neocode_tui.tui.conversation.palette import Palette

if TYPE_CHECKING:
    from neocode_tui.agent import Call
    from neocode_tui.chat import Message

TEXT_TAIL = 400
"""Characters of the child's latest text kept to find its last line."""
_BRIEF_KEYS = ("path", "pattern", "command", "url", "query")


class TaskBlock(ToolBlock):
    def __init__(self, call: Call) -> None:
        super().__init__(call)
        self.doing = ""
        """The tool the child started last, in a few words."""
        self.text_tail = ""
        self.tools_used = 0
        self.transcript: list[Message] = []

    # -- what the child does ---------------------------------------------------------------

    def child_event(self, event: Any) -> None:
        """One of the child's loop events (dispatched on its ``type`` tag)."""
        if event.type == "tool_started":
            self.tools_used += 1
            self.doing = f"→ {event.name} {_brief(event.arguments)}".rstrip()
        elif event.type == "approval_requested":
            self.doing = f"? {event.summary} (awaiting your approval)"
        elif event.type == "stream" and event.event.type == "text_delta":
            self.text_tail = (self.text_tail + event.event.text)[-TEXT_TAIL:]
        else:
            return
        self.changed()

    def child_done(self, messages: list[Message]) -> None:
        self.transcript = messages
        self.changed()

    def add_output(self, text: str) -> None:
        """The call's live output repeats the child's events, already shown from them."""

    def finish(self, result: str, diff: str | None) -> None:
        super().finish(result, diff)
        self.collapsed = True

    @property
    def can_collapse(self) -> bool:
        return self.finished and bool(self.transcript)

    # -- drawing -----------------------------------------------------------------------------

    def renderable(self, palette: Palette) -> RenderableType:
        icon, words, colour_name = _STATUS[self.status]
        colour = getattr(palette, colour_name)
        arguments = self.arguments
        agent = arguments.get("agent")
        description = arguments.get("description")
        label = f"{agent.text if agent is not None and agent.is_string else 'explore'}"
        if description is not None and description.is_string:
            label += f": {description.text}"
        title = Text.assemble((" task ", f"bold {palette.foreground}"), (f"· {visible(label)} ", palette.muted))
        used = f" · {self.tools_used} tool{'s' if self.tools_used != 1 else ''}" if self.tools_used else ""
        subtitle = Text(f" {icon} {words}{used} ", style=colour)
        body: RenderableType
        if self.result is None:
            body = self._activity(palette)
        elif self.collapsed or not self.transcript:
            body = self._answer(palette)
        else:
            body = Group(self._transcript(palette), self._answer(palette, whole=True))
        return Panel(
            body, title=title, title_align="left", subtitle=subtitle, subtitle_align="right",
            border_style=colour if self.finished or self.status == "approval" else palette.muted,
            expand=True,
        )

    def _activity(self, palette: Palette) -> Text:
        body = Text(no_wrap=True, overflow="ellipsis")
        body.append(visible(self.doing) if self.doing else "starting…", style=f"bold {palette.primary}")
        line = _last_line(self.text_tail)
        if line:
            body.append("\n" + visible(line), style=palette.foreground)
        return body

    def _answer(self, palette: Palette, whole: bool = False) -> Text:
        lines = visible(self.result or "").strip().split("\n")
        hidden = 0 if whole else max(len(lines) - COLLAPSED_LINES, 0)
        body = Text("\n".join(lines[: len(lines) - hidden]), style=palette.foreground)
        note = f"italic {palette.muted}"
        if hidden:
            body.append(f"\n… {hidden} more lines", style=note)
        if self.transcript and self.collapsed:
            body.append(f"\nctrl+t: the agent's whole transcript ({len(self.transcript)} messages)", style=note)
        return body

    def _transcript(self, palette: Palette) -> Text:
        """Each message of the child in a line or a few: its prompt, its calls and their
        results' first lines, its text (its last message is the answer, shown below)."""
        out = Text()
        results = {m.tool_call_id: m for m in self.transcript if m.role == "tool"}
        for message in self.transcript[:-1]:
            if message.role == "user":
                out.append(f"› {visible(message.content).strip()}\n", style=f"bold {palette.muted}")
            elif message.role == "assistant":
                if message.content.strip():
                    out.append(visible(message.content).strip() + "\n", style=palette.foreground)
                for call in message.tool_calls:
                    result = results.get(call.id)
                    failed = result is not None and result.is_error
                    mark, style = ("✗", palette.error) if failed else ("✓", palette.success)
                    out.append(f"→ {visible(call.name)} {_brief_raw(call.arguments)}".rstrip() + "\n",
                               style=palette.primary)
                    if result is not None:
                        out.append(f"  {mark} {visible(_last_line(result.content, first=True))}\n", style=style)
        out.append("─" * 3 + "\n", style=palette.muted)
        return out

    def estimate(self, width: int) -> int:
        if self.result is None:
            return 4
        if self.collapsed:
            return 3 + min(_estimate_text(self.result, width - 4), COLLAPSED_LINES + 1)
        return 3 + len(self.transcript) * 2 + _estimate_text(self.result, width - 4)


def _brief(arguments: object) -> str:
    """The argument that says most about a call: its path, pattern or command."""
    if not isinstance(arguments, dict):
        return ""
    pattern, path = arguments.get("pattern"), arguments.get("path")
    if isinstance(pattern, str) and isinstance(path, str):
        return visible(f"{pattern} in {path}".splitlines()[0])[:120]
    for key in _BRIEF_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return visible(value.strip().splitlines()[0])[:120]
    return ""


def _brief_raw(arguments: str) -> str:
    try:
        return _brief(json.loads(arguments))
    except ValueError:
        return ""


def _last_line(text: str, first: bool = False) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    return lines[0] if first else lines[-1]
