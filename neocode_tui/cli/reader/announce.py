"""A session's events as the lines a screen reader is to say: each message, tool call and
notice once, when it is complete, in plain words with no box drawing or redraws.

What the model or a tool wrote is shown with its control characters as stand-ins, so no
escape sequence reaches the terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from neocode_tui.agent import (
    LoopEvent,
    ModeChanged,
    Notice,
    PlanProposed,
    RunFinished,
    Streamed,
    SubagentDone,
    ToolFinished,
    ToolStarted,
    TurnFinished,
)
from neocode_tui.agent.tools import ToolNamed
from neocode_tui.events import StreamRetry, TextDelta
from neocode_tui.terminal_text import visible

Say = Callable[[str], None]
"""Appends one announcement (it may hold several lines) to what the reader hears."""

_LEVELS = {"info": "Note", "warning": "Warning", "error": "Error"}


class Announcer:
    def __init__(self, tool_named: ToolNamed, say: Say) -> None:
        self._tool_named = tool_named
        self._say = say
        self._text: list[str] = []
        self._calls: dict[str, str] = {}
        """What each running call is, by id, said when it ends."""

    def event(self, event: LoopEvent) -> None:
        if isinstance(event, Streamed):
            self._streamed(event)
        elif isinstance(event, TurnFinished | RunFinished):
            self._message_done()
            if isinstance(event, RunFinished):
                self._run_finished(event)
        elif isinstance(event, ToolStarted):
            self._message_done()
            self._calls[event.call_id] = self._summary(event.name, event.arguments)
        elif isinstance(event, ToolFinished):
            self._tool_finished(event)
        elif isinstance(event, Notice):
            self._message_done()
            self._say(f"{_LEVELS[event.level]}: {visible(event.message)}")
        elif isinstance(event, PlanProposed):
            self._say(f"Plan: {visible(event.plan)}")
        elif isinstance(event, ModeChanged):
            self._say(f"Mode: {event.mode}")
        elif isinstance(event, SubagentDone):
            self._say(f"Subagent {visible(event.agent)}: done")

    def _streamed(self, event: Streamed) -> None:
        if isinstance(event.event, TextDelta):
            self._text.append(event.event.text)
        elif isinstance(event.event, StreamRetry):  # that attempt's words are taken back
            self._text.clear()

    def _message_done(self) -> None:
        text = "".join(self._text).strip()
        self._text.clear()
        if text:
            self._say(f"Assistant: {visible(text)}")

    def _summary(self, name: str, arguments: Any) -> str:
        tool = self._tool_named(name)
        return visible(tool.summary(arguments if isinstance(arguments, dict) else {}) if tool else name)

    def _tool_finished(self, event: ToolFinished) -> None:
        what = self._calls.pop(event.call_id, None) or visible(event.name)
        if event.job:
            self._say(f"Tool {what}: in the background as {visible(event.job)}")
            return
        result = event.result.strip()
        if event.is_error:
            first = result.splitlines()[0] if result else ""
            self._say(f"Tool {what}: {event.status.replace('_', ' ')}: {visible(first)}")
            return
        lines = len(result.splitlines())
        self._say(f"Tool {what}: done, {lines} line{'s' * (lines != 1)}")

    def _run_finished(self, event: RunFinished) -> None:
        if event.error is not None:
            self._say(f"Error: {visible(event.error.message)}")
        elif event.reason == "cancelled":
            self._say("Interrupted.")
        elif event.reason == "turn_limit":
            self._say("Stopped at the turn limit.")
