"""``/export [FILE]``: the conversation as Markdown, to keep or share outside the app.

The file is written where the user says (relative to the workspace) and never over an
existing one: a typo must not replace a file of the project."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import TYPE_CHECKING

from neocode_tui.agent.commands.outcomes import Report
from neocode_tui.terminal_text import visible

if TYPE_CHECKING:
    from neocode_tui.agent.commands.host import CommandHost
    from neocode_tui.chat import Message


def _fenced(text: str, language: str = "") -> str:
    """A code fence longer than any run of backticks inside: the text cannot close it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def conversation_markdown(title: str, messages: list[Message]) -> str:
    parts = [f"# {title}"]
    for message in messages:
        if message.role == "user" and message.notice:  # NeoCode's note to the model, not yours
            parts.append("\n".join(f"> {line}" for line in message.content.strip().splitlines()))
        elif message.role == "user":
            parts.append(f"## You\n\n{message.content.strip()}")
        elif message.role == "assistant":
            if message.content.strip():
                parts.append(f"## NeoCode\n\n{message.content.strip()}")
            for call in message.tool_calls:
                parts.append(f"**{call.name}**\n\n{_fenced(call.arguments, 'json')}")
        else:
            ended = message.status or ("error" if message.is_error else "ok")
            parts.append(f"Result ({ended}):\n\n{_fenced(message.content)}")
    return "\n\n".join(parts) + "\n"


async def export(session: CommandHost, argument: str) -> Report:
    if not session.messages:
        return Report("Nothing to export yet: the conversation is empty.", "warning")
    target = Path(argument).expanduser() if argument else Path(f"neocode-{session.id or 'session'}.md")
    if not target.is_absolute():
        target = session.workspace / target
    text = conversation_markdown(session.title or "NeoCode session", session.messages)
    try:
        await asyncio.to_thread(_write_new, target, text)
    except FileExistsError:
        return Report(f"{visible(str(target))} exists: give /export another file name.", "warning")
    except OSError as exc:
        return Report(f"cannot write {visible(str(target))}: {exc.strerror or exc}", "warning")
    return Report(f"exported {len(session.messages)} messages to {visible(str(target))}")


def _write_new(target: Path, text: str) -> None:
    with target.open("x", encoding="utf-8") as file:
        file.write(text)
