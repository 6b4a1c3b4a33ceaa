"""What the terminal keeps once the app's own screen is gone: the conversation, printed to
the normal screen so it stays in the scrollback, as Claude Code leaves its own. Prompts,
the answers rendered (not raw Markdown), each tool call with one line of its result; of a
long session only the latest part. Everything the model or a tool wrote is scrubbed of the
session's secrets and has its control characters made visible before Rich draws it, and
links are drawn as text, so nothing of theirs reaches the terminal as a control sequence."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from rich.console import Console, RenderableType
from rich.markdown import Markdown
from rich.text import Text

from neocode_tui.agent import extensions
from neocode_tui.terminal_text import visible

if TYPE_CHECKING:
    from neocode_tui.agent.session import AgentSession
    from neocode_tui.chat import Message

CAP = 40_000
"""Characters of the conversation's text printed at most, the latest kept: enough for the
last several turns, and a session of thousands of messages still ends at once."""
WIDEST = 160
"""Columns the conversation is laid out in at most, however wide the terminal."""
_STYLE = re.compile(r"\x1b\[[0-9;]*m")
_TRAILING = re.compile(r"(?:\x1b\[[0-9;]*m| )+$", re.MULTILINE)
"""The spaces Rich pads a line with to the full width (and the styles among them): a line
copied from the scrollback should end where its text does."""


@dataclass(frozen=True)
class Entry:
    kind: str
    """``prompt``, ``answer`` or ``call``."""
    text: str
    result: str = ""
    """For a call: its result, whole (one line of it is printed)."""
    summary: str = ""
    """For a call: what it did, in a line (the tool's name is ``text``)."""

    @property
    def size(self) -> int:
        return len(self.text) + len(self.summary) + min(len(self.result), 200)


def entries(session: AgentSession) -> list[Entry]:
    """The conversation as the scrollback shows it, scrubbed, in order."""
    scrub = session.secrets
    results = {m.tool_call_id: m.content for m in session.messages if m.role == "tool"}
    found: list[Entry] = []
    for message in session.messages:
        found += _message_entries(session, message, results, scrub)
    return found


def _message_entries(session: AgentSession, message: Message, results: dict[str | None, str],
                     scrub: Callable[[str], str]) -> list[Entry]:
    if message.role == "user":
        typed = extensions.typed_part(message.content).strip()
        return [Entry("prompt", scrub(typed))] if typed else []
    if message.role != "assistant":
        return []
    found = [Entry("answer", scrub(message.content.strip()))] if message.content.strip() else []
    for call in message.tool_calls:
        summary = scrub(_summary(session, call.name, call.arguments))
        found.append(Entry("call", call.name, scrub(results.get(call.id, "")), summary))
    return found


def _summary(session: AgentSession, name: str, arguments: str) -> str:
    """The tool's one-line summary of the call (``seq 1 30``, ``read app.py``), if any."""
    tool = session.loop.tools.get(name)
    try:
        parsed = json.loads(arguments)
        return tool.summary(parsed).strip() if tool is not None and isinstance(parsed, dict) else ""
    except (TypeError, ValueError, AttributeError):  # arguments the model got wrong
        return ""


def latest(found: list[Entry], cap: int = CAP) -> tuple[list[Entry], int]:
    """The latest entries whose text fits in ``cap`` (always the last one), and how many
    earlier ones were left out."""
    total, start = 0, len(found)
    while start > 0 and (total + found[start - 1].size <= cap or start == len(found)):
        start -= 1
        total += found[start].size
    return found[start:], start


def _one_line(result: str, width: int) -> str:
    lines = [line for line in result.strip().splitlines() if line.strip()]
    if not lines:
        return "(no output)"
    more = f"  (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
    first = visible(lines[0].strip())
    room = max(width - len(more), 10)
    return (first if len(first) <= room else first[: room - 1] + "…") + more


def _drawn(entry: Entry, width: int) -> RenderableType:
    if entry.kind == "prompt":
        return Text.assemble(("› ", "bold cyan"), (visible(entry.text), "bold"))
    if entry.kind == "answer":
        return Markdown(visible(entry.text), hyperlinks=False)
    return Text.assemble(("● ", "green"), (visible(entry.text), "bold"), "  ", visible(entry.summary), "\n",
                         ("  ⎿ ", "dim"), (_one_line(entry.result, width - 6), "dim"))


def print_conversation(session: AgentSession, file: TextIO) -> None:
    """The conversation (its latest part) onto ``file``, a blank line between entries."""
    shown, left_out = latest(entries(session))
    if not shown:
        return
    width = min(shutil.get_terminal_size().columns, WIDEST)
    console = Console(file=file, width=width, highlight=False, markup=False, emoji=False)
    with console.capture() as drawn:
        if left_out:
            console.print(Text(f"… {left_out} earlier entries are not shown here; --continue brings "
                               "the whole conversation back", style="dim"))
        for entry in shown:
            console.print(_drawn(entry, width))
            console.print()
    file.write(_TRAILING.sub(lambda found: "".join(_STYLE.findall(found.group())), drawn.get()))
