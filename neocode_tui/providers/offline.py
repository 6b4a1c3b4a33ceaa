"""The built-in offline model: what ``neocode`` talks to when no API key is set.

It is a script, not a model, but it works on the real folder through the real tools, so a
first run shows everything the app does: streamed Markdown with a code fence, a folder
listing, a file read, an edit that waits for your approval, and a closing answer. Each
reply is a function of the conversation it is sent, so the same folder and prompt always
give the same session (demos and snapshot tests rely on that).
"""

from __future__ import annotations

import json
import re

from neocode_tui.chat import ChatRequest, Message
from neocode_tui.events import StreamEvent, Usage
from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply

NOTES = "NOTES.md"
README_NAMES = ("README.md", "README.rst", "README.txt", "README")
LIVE_RATE = 400.0
"""Deltas per second when a person watches: fast, but slow enough to see the stream."""
_NUMBERED_LINE = re.compile(r"^ *\d+\t")


def offline_provider(*, model: str = "scripted", rate: float | None = None) -> ScriptedProvider:
    """``rate``: deltas per second (None: as fast as possible, for tests and headless runs)."""
    return ScriptedProvider(offline_reply, model=model, rate=rate)


def offline_reply(request: ChatRequest) -> list[StreamEvent]:
    """The next assistant message for ``request``: one step of the tour per turn."""
    last_user = max(i for i, m in enumerate(request.messages) if m.role == "user")
    prompt = request.messages[last_user].content
    tail = request.messages[last_user + 1 :]
    results = [m for m in tail if m.role == "tool"]
    turn = sum(1 for m in request.messages if m.role == "assistant") + 1
    if not results:
        text, calls = _introduce(prompt)
    elif len(results) == 1:
        text, calls = _read_something(results[0])
    elif len(results) == 2 and results[1].name == "read_file":
        text, calls = _propose_note(results[1], _arguments_of(results[1], tail))
    else:
        text, calls = _conclude(results[-1]), []
    usage = Usage(
        input_tokens=sum(len(m.content) for m in request.messages) // 4 + 200,
        output_tokens=(len(text) + sum(len(a) for _, a in calls)) // 4 + 1,
    )
    return scripted_reply(text, calls, usage=usage, delta=5, call_id_prefix=f"offline_{turn}_")


def _call(name: str, **arguments: str) -> tuple[str, str]:
    return name, json.dumps(arguments)


def _introduce(prompt: str) -> tuple[str, list[tuple[str, str]]]:
    first_line = prompt.strip().splitlines()[0][:80] if prompt.strip() else ""
    text = (
        f"You asked: *{first_line}*\n\n"
        "I am NeoCode's **offline model**: a script, not an LLM, so I cannot really answer. "
        "Set `OPENAI_API_KEY` or `ANTHROPIC_API_KEY` for a real one. Until then, here is "
        "what a turn looks like; the agent loop at work, in Python:\n\n"
        "```python\n"
        "while True:\n"
        "    turn = await collect(provider.stream(request))\n"
        "    if not turn.tool_calls:\n"
        "        break  # the model has answered\n"
        "    results = [await run(call) for call in turn.tool_calls]\n"
        "```\n\n"
        "Let me look around this folder first."
    )
    return text, [_call("list_dir", path=".")]


def _read_something(listing: Message) -> tuple[str, list[tuple[str, str]]]:
    empty = listing.is_error or listing.content.endswith(" is empty")
    entries = [] if empty else listing.content.splitlines()
    files = [e for e in entries if e and not e.endswith(("/", "@")) and not e.startswith("[")]
    preferred = [NOTES, *README_NAMES]
    target = next((name for name in preferred if name in files), files[0] if files else None)
    if target is None:
        return _propose_note_text(None), [_write_note(None)]
    return f"I see {len(entries)} entries. Let me read `{target}`.", [_call("read_file", path=target)]


def _arguments_of(result: Message, tail: list[Message]) -> dict[str, object]:
    """The arguments of the call ``result`` answers (the result itself does not name them)."""
    for message in tail:
        for call in message.tool_calls:
            if call.id == result.tool_call_id:
                arguments: dict[str, object] = json.loads(call.arguments)
                return arguments
    return {}


def _propose_note(read: Message, arguments: dict[str, object]) -> tuple[str, list[tuple[str, str]]]:
    notes_text = None
    if arguments.get("path") == NOTES and not read.is_error:
        if "[showing lines" in read.content:
            return f"`{NOTES}` is long; I will leave it alone.", []
        # Only the numbered lines are the file ("NOTES.md is empty" is a message, not text).
        notes_text = "".join(
            _NUMBERED_LINE.sub("", line) + "\n"
            for line in read.content.splitlines()
            if _NUMBERED_LINE.match(line)
        )
    return _propose_note_text(notes_text), [_write_note(notes_text)]


def _propose_note_text(notes_text: str | None) -> str:
    action = "add a line to" if notes_text is not None else "create"
    return f"Now a harmless edit, so you can see an approval: I will {action} `{NOTES}`."


def _write_note(notes_text: str | None) -> tuple[str, str]:
    line = "- Visited by NeoCode's offline model.\n"
    content = ("# Notes\n\n" if notes_text is None else notes_text) + line
    return _call("write_file", path=NOTES, content=content)


def _conclude(result: Message) -> str:
    if result.is_error:
        return (
            f"Understood: I left `{NOTES}` as it was.\n\n"
            f"> {result.content.splitlines()[0] if result.content else 'no reason given'}\n\n"
            "That was the whole tour: streaming, tool calls and approvals."
        )
    return (
        f"Done: `{NOTES}` has its new line (the diff is above).\n\n"
        "That was the whole tour. With a real model you can ask for anything in this "
        "folder: **read**, **search**, **edit**, **run commands**."
    )
