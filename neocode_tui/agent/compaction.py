"""``/compact``: replace a long history with a model-written summary.

The transcript is sent flattened to plain text in one user message, without tools, so
the request is valid for every provider whatever tool calls the history holds (some APIs
refuse tool-call blocks when no tools are declared).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from neocode_tui.collector import collect
from neocode_tui.chat import ChatRequest, Message
from neocode_tui.providers import Provider

INSTRUCTION = (
    "Summarise the conversation below so that it can replace it: the user's goals, what was "
    "decided, which files were read or changed and how, and what is left to do. Be concise; "
    "keep file paths, names and numbers exact."
)
SUMMARY_PREFIX = "Summary of the conversation so far (it replaced the full history):\n\n"
MAX_RESULT_CHARS = 2_000
"""Tool results are cut to this in the flattened text: the summary needs their gist only."""


@dataclass
class Compaction:
    messages: list[Message] = field(default_factory=list)
    error: str | None = None


def flatten(messages: list[Message]) -> str:
    parts: list[str] = []
    for message in messages:
        if message.role == "tool":
            result = message.content[:MAX_RESULT_CHARS]
            parts.append(f"[tool result {message.name or ''}]\n{result}")
            continue
        text = message.content
        for call in message.tool_calls:
            text += f"\n[calls {call.name} {call.arguments}]"
        parts.append(f"[{message.role}]\n{text.strip()}")
    return "\n\n".join(parts)


async def compact_messages(provider: Provider, messages: list[Message]) -> Compaction:
    request = ChatRequest(
        model=provider.model,
        system=INSTRUCTION,
        messages=[Message(role="user", content=f"{INSTRUCTION}\n\n{flatten(messages)}")],
    )
    turn = await collect(provider.stream(request))
    if not turn.ok or not turn.text.strip():
        reason = turn.error.message if turn.error else "the model returned no summary"
        return Compaction(error=reason)
    return Compaction(
        messages=[
            Message(role="user", content=SUMMARY_PREFIX + turn.text.strip()),
            Message(role="assistant", content="Understood. I will continue from this summary."),
        ]
    )
