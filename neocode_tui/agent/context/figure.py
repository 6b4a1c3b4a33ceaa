"""How full the model's context window is, and with what.

The figure is the last request's tokens as the server counted them (its input plus the
answer, which the next request carries too). When the server did not report usage, or the
history changed since (resumed, compacted), it is an estimate from the text: about four
characters a token, the usual rule for English and code; no tokenizer is shipped for
every model, and a meter needs the size, not the exact count.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from neocode_tui.agent.context.pricing import known_window
from neocode_tui.chat import Message, ToolSpec
from neocode_tui.events import ErrorInfo, Usage

CHARS_PER_TOKEN = 4
ASSUMED_WINDOW = 128_000
"""The window assumed for a model whose own is not known, so that an unknown window is never
a reason to send a history of any size (a 1 GB session as one request). The common size of
today's models: one with less answers "too long", which compacts and sends again; one with
more is only compacted earlier than it needed. ``context_window`` (NEOCODE_CONTEXT_WINDOW)
gives the real one."""
MESSAGE_OVERHEAD = 4
"""Tokens each message costs beyond its text (role markers), as the chat formats count."""

FAMILY_WINDOWS: tuple[tuple[str, int], ...] = (
    (r"qwen3-coder", 262_144),
    (r"qwen-?3", 32_768),
    (r"qwen-?2\.5", 32_768),
    (r"llama-?3\.[123]", 131_072),
    (r"llama-?3\b|llama3(?![.\d])", 8_192),
    (r"deepseek-coder-v2", 163_840),
    (r"deepseek-(r1|v3|chat|reasoner)", 131_072),
    (r"gpt-oss", 131_072),
    (r"mistral-small|codestral", 131_072),
)
"""Open models people run on their own servers, which the price list names only as some
host's product: their published windows. A server may be set to less (Ollama's default is
far smaller): the ``context_window`` setting says what it really has."""


def context_window(model: str, base_url: str | None = None, override: int | None = None) -> int | None:
    """The model's window in tokens: the setting, else the price list, else the open
    model's family, else None (unknown: no meter; compaction assumes ``ASSUMED_WINDOW``)."""
    if override:
        return override
    known = known_window(model, base_url)
    if known:
        return known
    name = model.lower()
    for pattern, window in FAMILY_WINDOWS:
        if re.search(pattern, name):
            return window
    return None


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def about(tokens: int) -> str:
    """An estimate shown as one: "~1,200" (two significant figures, tens at least)."""
    digits = max(len(str(abs(tokens))) - 2, 1)
    return f"~{round(tokens, -digits):,}"


def message_tokens(message: Message) -> int:
    chars = len(message.content) + len(message.reasoning)
    for call in message.tool_calls:
        chars += len(call.name) + len(call.arguments)
    images = sum(-(-image.width * image.height // PIXELS_PER_TOKEN) for image in message.images)
    return -(-chars // CHARS_PER_TOKEN) + MESSAGE_OVERHEAD + images


PIXELS_PER_TOKEN = 750
"""Anthropic's published rule for an image's tokens (OpenAI's tiles come out close)."""


class ContextPart(BaseModel):
    model_config = ConfigDict(defer_build=True)

    name: str
    tokens: int


class ContextFigure(BaseModel):
    """What the next request will carry at least, against the window."""

    model_config = ConfigDict(defer_build=True)

    tokens: int
    window: int | None
    estimated: bool
    """True when counted from the text, False when the server reported it."""

    @property
    def fraction(self) -> float | None:
        return self.tokens / self.window if self.window else None

    def as_json(self) -> dict[str, object]:
        fraction = self.fraction
        return {
            "tokens": self.tokens, "window": self.window, "estimated": self.estimated,
            "percent": round(fraction * 100, 1) if fraction is not None else None,
        }


def reported_tokens(usage: Usage | None) -> int | None:
    """The request's input plus its answer, when the server counted the input."""
    if usage is None or not usage.input_tokens:
        return None
    return usage.input_tokens + (usage.output_tokens or 0)


def breakdown(
    system_prompt: str, tools: Sequence[ToolSpec], messages: Sequence[Message]
) -> list[ContextPart]:
    """What fills the window, part by part, estimated: the instructions, each instruction
    file, the tool definitions, then the history, always last two: the conversation and
    the tool results (files read, command output)."""
    base, *sections = system_prompt.split("\n\n# ")
    parts = [ContextPart(name="system prompt", tokens=estimate_tokens(base))]
    for section in sections:
        title = section.partition("\n")[0]
        name = "AGENTS.md (project)" if "AGENTS.md" in title else "AGENTS.md (yours)"
        parts.append(ContextPart(name=name, tokens=estimate_tokens(section)))
    specs = json.dumps([tool.model_dump() for tool in tools])
    parts.append(ContextPart(name="tool definitions", tokens=estimate_tokens(specs)))
    talk = sum(message_tokens(m) for m in messages if m.role != "tool")
    results = sum(message_tokens(m) for m in messages if m.role == "tool")
    parts.append(ContextPart(name="conversation", tokens=talk))
    parts.append(ContextPart(name="tool results and files", tokens=results))
    return parts


OVERFLOW_WORDS = re.compile(
    r"context[ _]length|context window|maximum context|prompt is too long|too many tokens"
    r"|input is too long|exceeds? the (model's )?(context|maximum)", re.IGNORECASE,
)


def is_overflow(error: ErrorInfo | None) -> bool:
    """The request no longer fits the model: the provider says so by kind, or, from a
    server it cannot classify, in words of a rejected request."""
    if error is None:
        return False
    if error.kind == "context_overflow":
        return True
    return error.kind == "bad_request" and bool(OVERFLOW_WORDS.search(error.message))
