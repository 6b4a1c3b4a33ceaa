"""``/copy [N]``: the last answer, or its N-th code block, onto the system clipboard.

Two ways at once, because neither reaches every setup: OSC 52 asks the terminal (it works
over SSH and in tmux with ``set-clipboard on``, but some terminals ignore it), and the
desktop's own tool (``wl-copy``, ``xclip``, ``xsel``, ``pbcopy``) where one is installed.
The tool runs as a subprocess fed on stdin: nothing waits on it in the event loop."""

from __future__ import annotations

import asyncio
import re
import shutil
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from neocode_tui.agent.session import AgentSession
    from neocode_tui.chat import Message
    from neocode_tui.tui.conversation import ConversationView

TOOLS: tuple[tuple[str, ...], ...] = (
    ("wl-copy",), ("xclip", "-selection", "clipboard"), ("xsel", "--clipboard", "--input"), ("pbcopy",),
)
_FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1\s*$", re.MULTILINE | re.DOTALL)


class CopyHost(Protocol):
    """The app, as far as ``/copy`` needs it: the conversation to copy from and to answer
    in, and the terminal to copy through."""

    @property
    def session(self) -> AgentSession: ...

    @property
    def conversation(self) -> ConversationView: ...

    def copy_to_clipboard(self, text: str) -> None: ...


def last_answer(messages: list[Message]) -> str:
    for message in reversed(messages):
        if message.role == "assistant" and message.content.strip():
            return message.content.strip()
    return ""


def code_blocks(text: str) -> list[str]:
    return [match.group(2).rstrip("\n") for match in _FENCE.finditer(text)]


def chosen(messages: list[Message], argument: str) -> tuple[str, str]:
    """(text to copy, what it is) or ("", why there is nothing)."""
    answer = last_answer(messages)
    if not answer:
        return "", "nothing to copy yet: no answer"
    if not argument:
        return answer, "the last answer"
    blocks = code_blocks(answer)
    if not argument.isdigit() or not 1 <= int(argument) <= len(blocks):
        return "", f"/copy N takes a code block's number: the last answer has {len(blocks)}"
    return blocks[int(argument) - 1], f"code block {argument}"


async def _system_copy(text: str) -> str | None:
    """The desktop tool that took ``text``, if one is installed and did."""
    for command in TOOLS:
        path = shutil.which(command[0])
        if path is None:
            continue
        try:
            process = await asyncio.create_subprocess_exec(
                path, *command[1:], stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
            )
            await asyncio.wait_for(process.communicate(text.encode()), timeout=5)
        except (OSError, TimeoutError):
            continue
        if process.returncode == 0:
            return command[0]
    return None


async def copy_command(app: CopyHost, argument: str) -> None:
    text, what = chosen(app.session.messages, argument.strip())
    if not text:
        app.conversation.add_notice("warning", what)
        return
    app.copy_to_clipboard(text)
    tool = await _system_copy(text)
    also = f" and {tool}" if tool else ""
    app.conversation.add_notice("info", f"copied {what} ({len(text)} characters) through the terminal{also}")
