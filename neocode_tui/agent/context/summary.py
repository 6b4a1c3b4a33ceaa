"""Compaction: a model-written summary of the older history, the recent turns kept as they
were, so a long conversation goes on inside the model's context window.

Tool results go first: in the text the summary is written from they are cut to their gist,
and in the turns kept verbatim a long one is cut too (they are most of a coding session's
tokens). The older history is sent flattened to plain text in one user message, without
tools, so the request is valid for every provider whatever tool calls it holds (some APIs
refuse tool-call blocks when no tools are declared).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from neocode_tui.chat import ChatRequest, Message
from neocode_tui.collector import collect
from neocode_tui.events import Usage
from neocode_tui.known_secrets import Secrets
from neocode_tui.providers import Provider

INSTRUCTION = (
    "Summarise the conversation below so that it can replace it: the user's goals, what was "
    "decided, which files were read or changed and how, and what is left to do. Be concise; "
    "keep file paths, names and numbers exact."
)
SUMMARY_PREFIX = "Summary of the conversation so far (it replaced the older history):\n\n"
ACKNOWLEDGEMENT = "Understood. I will continue from this summary."
KEEP_TURNS = 2
"""The last prompts kept verbatim, each with everything that followed it."""
MAX_RESULT_CHARS = 2_000
"""Tool results are cut to this in the text the summary is written from."""
KEPT_RESULT_CHARS = 4_000
"""Tool results in the turns kept verbatim are cut to this."""


@dataclass
class Compacted:
    messages: list[Message] = field(default_factory=list)
    error: str | None = None
    summary: str = ""
    summarised: int = 0
    """Messages the summary replaced."""
    kept: int = 0
    """Recent messages kept (their long tool results cut)."""
    usage: Usage | None = None
    """What the summary request cost, when the server said."""


def flatten_part(message: Message, limit: int) -> str:
    """One message as text, at most about ``limit`` characters (a tool result far less)."""
    if message.role == "tool":
        return f"[tool result {message.name or ''}]\n{message.content[:min(limit, MAX_RESULT_CHARS)]}"
    text = _fit(message.content, limit)
    for call in message.tool_calls:
        text += f"\n[calls {call.name} {_fit(call.arguments, limit)}]"
    return _fit(f"[{message.role}]\n{text.strip()}", limit)


def flatten(messages: Sequence[Message], budget: int) -> str:
    """The messages as plain text in about ``budget`` characters: when they are longer, the
    start (the goals) and the end (the latest work), saying how much was left out between.
    Only the messages kept are turned into text, so a history of any size costs the budget,
    not its own size."""
    head = _take(messages, budget // 2)
    tail = _take(messages[len(head):][::-1], budget // 2)
    left_out = len(messages) - len(head) - len(tail)
    gap = [f"[… {left_out:,} messages left out …]"] if left_out else []
    return "\n\n".join([*head, *gap, *reversed(tail)])


def _take(messages: Sequence[Message], budget: int) -> list[str]:
    """Whole messages from the first, as text, while they fit ``budget`` (a first one that
    does not is cut to it)."""
    parts: list[str] = []
    used = 0
    for message in messages:
        part = flatten_part(message, budget)
        if parts and used + len(part) > budget:
            break
        parts.append(part)
        used += len(part) + 2
    return parts


def split(messages: list[Message], keep_turns: int = KEEP_TURNS) -> tuple[list[Message], list[Message]]:
    """(older, recent): ``recent`` starts at one of the last ``keep_turns`` prompts, so no
    tool call is parted from its result. With too few prompts fewer are kept, down to none."""
    starts = [i for i, message in enumerate(messages) if message.role == "user"]
    for keep in range(min(keep_turns, len(starts)), 0, -1):
        cut = starts[-keep]
        if cut > 0:
            return messages[:cut], messages[cut:]
    return list(messages), []


def trim_results(messages: list[Message], limit: int = KEPT_RESULT_CHARS) -> list[Message]:
    """Each tool result longer than ``limit`` cut to its start, saying how much was left out."""
    trimmed = []
    for message in messages:
        if message.role == "tool" and len(message.content) > limit:
            left_out = len(message.content) - limit
            content = f"{message.content[:limit]}\n[… {left_out} characters left out by compaction]"
            message = message.model_copy(update={"content": content})
        trimmed.append(message)
    return trimmed


def _fit(text: str, budget: int) -> str:
    """The start (the goals) and the end (the latest work) of ``text`` when it is too long."""
    if len(text) <= budget:
        return text
    half = budget // 2
    return f"{text[:half]}\n\n[… {len(text) - 2 * half} characters left out …]\n\n{text[-half:]}"


async def compact_messages(
    provider: Provider,
    messages: list[Message],
    *,
    secrets: Secrets,
    instructions: str = "",
    budget_chars: int,
    keep_turns: int = KEEP_TURNS,
) -> Compacted:
    """Summarise all but the last ``keep_turns`` prompts from at most about ``budget_chars``
    of them; ``instructions`` (from ``/compact ...``) say what the summary must keep; the
    summary streams through ``secrets`` like any answer."""
    older, recent = split(messages, keep_turns)
    instruction = INSTRUCTION
    if instructions.strip():
        instruction += f" Above all, keep: {instructions.strip()}"
    request = ChatRequest(
        model=provider.model,
        system=instruction,
        messages=[Message(role="user", content=f"{instruction}\n\n{flatten(older, budget_chars)}")],
    )
    turn = await collect(secrets.stream(provider.stream(request)))
    if not turn.ok or not turn.text.strip():
        reason = turn.error.message if turn.error else "the model returned no summary"
        return Compacted(error=reason, usage=turn.usage)
    summary = turn.text.strip()
    return Compacted(
        messages=[
            Message(role="user", content=SUMMARY_PREFIX + summary),
            Message(role="assistant", content=ACKNOWLEDGEMENT),
            *trim_results(recent),
        ],
        summary=summary,
        summarised=len(older),
        kept=len(recent),
        usage=turn.usage,
    )
