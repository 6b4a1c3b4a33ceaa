"""The panel of a ``task`` call: a subagent at work, then its answer.

While the child works the panel shows what it is doing (the tool it started last and the
end of its current message's latest line, whole words first to go from the start) and, in
its subtitle, the time, tool uses and tokens so far; once it is done the panel folds to one
line of the child's answer with the same figures, and unfolds (Ctrl+T, Ctrl+O, a click) to
the whole answer and the child's transcript.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from neocode_tui.agent.delegation import spent_tokens
from neocode_tui.agent.processes import seconds
from neocode_tui.terminal_text import visible
from neocode_tui.tui.conversation.blocks import _STATUS, ToolBlock, _estimate_text, _took
from neocode_tui.tui.conversation.palette import Palette

if TYPE_CHECKING:
    from neocode_tui.agent import Call
    from neocode_tui.chat import Message

TEXT_TAIL = 400
"""Characters of the child's latest text kept to find its last line."""
LAST_LINE = 240
"""Characters of that line shown at most: its end, where the newest words are."""
_BRIEF_KEYS = ("path", "pattern", "command", "url", "query")


class TaskBlock(ToolBlock):
    def __init__(self, call: Call) -> None:
        super().__init__(call)
        self.doing = ""
        """The tool the child started last, in a few words."""
        self.text_tail = ""
        self.tools_used = 0
        self.tokens = 0
        """The child's tokens so far, in and out."""
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
        elif event.type == "turn_started":
            self.text_tail = ""  # a new message: the last one's words do not run into it
        elif event.type == "turn_finished" and event.usage is not None:
            self.tokens += (event.usage.input_tokens or 0) + (event.usage.output_tokens or 0)
        else:
            return
        self.changed()

    def child_done(self, messages: list[Message]) -> None:
        self.transcript = messages
        # A resumed session's child: its calls counted from its transcript.
        self.tools_used = self.tools_used or sum(len(message.tool_calls) for message in messages)
        self.changed()

    def add_output(self, text: str) -> None:
        """The call's live output repeats the child's events, already shown from them."""

    def finish(self, result: str, diff: str | None) -> None:
        super().finish(result, diff)
        self.tokens = self.tokens or spent_tokens(result)  # a resumed session's child
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
        subtitle = Text(f" {icon} {words}{self._figures()} ", style=colour)
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

    def _figures(self) -> str:
        """`` · 12 s · 3 tools · 1,900 tokens``: the time (so far), tool uses and tokens."""
        if self.finished:
            time = "" if self.duration is None else f" · ran {seconds(self.duration)}"
        else:
            time = _took(self.took)
        used = f" · {self.tools_used} tool{'s' if self.tools_used != 1 else ''}" if self.tools_used else ""
        return time + used + (f" · {self.tokens:,} tokens" if self.tokens else "")

    def _activity(self, palette: Palette) -> RenderableType:
        doing = Text(visible(self.doing) if self.doing else "starting…", style=f"bold {palette.primary}",
                     no_wrap=True, overflow="ellipsis")
        line = _last_line(self.text_tail)
        if not line:
            return doing
        if len(line) > LAST_LINE:
            line = "…" + line[-LAST_LINE:]
        return Group(doing, Text(visible(line), style=palette.foreground))  # wrapped: the end stays

    def _answer(self, palette: Palette, whole: bool = False) -> RenderableType:
        answer = visible(self.result or "").strip()
        if whole or not self.transcript:
            return Text(answer, style=palette.foreground)
        first = answer.split("\n", 1)[0]
        row = Table.grid(expand=True)
        row.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        row.add_column(no_wrap=True)
        hint = f"  ctrl+t: transcript ({len(self.transcript)} messages)"
        row.add_row(Text(first + (" …" if first != answer else ""), style=palette.foreground),
                    Text(hint, style=f"italic {palette.muted}"))
        return row

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
        if self.collapsed and self.transcript:
            return 3
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
