"""What an import makes of another agent's session file, before it is saved: messages in
NeoCode's vocabulary, the tokens the file reported and the lines it could not use."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from neocode_tui.chat import Message, ToolCall
from neocode_tui.events import Usage
from neocode_tui.json_files import json_records

MAX_LINE = 16 * 1024 * 1024
"""Longest line read (a pasted screenshot's base64 fits); a longer one is skipped."""

Scrub = Callable[[str], str]
"""The user's secrets taken out of a text before it is kept."""


@dataclass
class Imported:
    source: str
    """Whose file it was, in words ("Claude Code", "Codex")."""
    messages: list[Message] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage.unknown)
    model: str = ""
    skipped: int = 0
    """Lines that were not JSON objects, or not of a shape the format has."""

    _key: str | None = None

    def assistant(self, model: str, key: str | None = None) -> Message:
        """The assistant message a block belongs to: the last one while it goes on (the
        same response ``key``, or any when the format has none), else a new one."""
        last = self.messages[-1] if self.messages else None
        if last is not None and last.role == "assistant" and (key is None or key == self._key):
            return last
        self._key = key
        message = Message(role="assistant", model=model)
        self.messages.append(message)
        return message

    def said(self, message: Message, text: str = "", reasoning: str = "") -> None:
        if text:
            message.content = f"{message.content}\n\n{text}" if message.content else text
        if reasoning:
            message.reasoning = f"{message.reasoning}\n\n{reasoning}" if message.reasoning else reasoning

    def call(self, message: Message, call_id: str, name: str, arguments: Any, scrub: Scrub) -> None:
        text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
        message.tool_calls.append(ToolCall(id=call_id or f"call_{len(message.tool_calls)}", name=name,
                                           arguments=scrub(text)))


def json_lines(path: Path, imported: Imported) -> Iterator[dict[str, Any]]:
    """Each JSON object line of ``path``; what is not one is counted in ``skipped``.
    Raises ``OSError`` when the file cannot be read."""
    with path.open("rb") as handle:
        for _, record in json_records(handle, MAX_LINE):
            if record is None:
                imported.skipped += 1
            else:
                yield record


def number(value: object) -> int | None:
    """A token count as given, or None for anything that is not a count."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
