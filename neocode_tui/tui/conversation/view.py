"""Provisional conversation view (API stub; the line-based view replaces it)."""

from __future__ import annotations

import asyncio
from typing import Literal

from rich.markdown import Markdown
from rich.text import Text
from textual.widgets import RichLog

from neocode_tui.agent.loop_events import LoopEvent, Streamed, ToolFinished, TurnFinished
from neocode_tui.conversation import Message
from neocode_tui.events import TextDelta


class ConversationView(RichLog):
    anchored: bool = True

    def __init__(self, **kwargs) -> None:
        super().__init__(wrap=True, markup=False, **kwargs)
        self._text: list[str] = []

    def add_user_message(self, text: str) -> None:
        self.write(Text("> " + text, style="bold"))

    def post(self, event: LoopEvent) -> None:
        if isinstance(event, Streamed) and isinstance(event.event, TextDelta):
            self._text.append(event.event.text)
        elif isinstance(event, TurnFinished):
            self.write(Markdown("".join(self._text)))
            self._text.clear()
        elif isinstance(event, ToolFinished):
            self.write(Text(f"{event.name}: {event.status}"))

    def add_notice(self, level: Literal["info", "warning", "error"], message: str) -> None:
        self.write(Text(message, style={"error": "red", "warning": "yellow"}.get(level, "")))

    def load_transcript(self, messages: list[Message]) -> None:
        for message in messages:
            self.write(Markdown(message.content))

    def scroll_to_latest(self) -> None:
        self.scroll_end(animate=False)

    async def settled(self) -> None:
        await asyncio.sleep(0)
