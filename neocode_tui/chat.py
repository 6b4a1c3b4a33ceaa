"""The provider-neutral transcript: what the loop keeps and what every provider is sent."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

DEFERRED = ConfigDict(defer_build=True)
"""Validators built on first use, not at import: the app draws its first frame sooner."""


def clean_text(text: str) -> str:
    """``text`` as valid Unicode: bytes that were not UTF-8 (a file name, an argument,
    decoded with ``surrogateescape``) become U+FFFD instead of failing every JSON encoder,
    session file and terminal they reach."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text


class ToolCall(BaseModel):
    model_config = DEFERRED

    id: str
    name: str
    arguments: str
    """The raw JSON text the model sent (sent back verbatim, even when it did not parse)."""


class Message(BaseModel):
    model_config = DEFERRED

    role: Literal["user", "assistant", "tool"]
    content: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    """For ``role="tool"``: the call this is the result of."""
    name: str | None = None
    """For ``role="tool"``: the tool's name (Anthropic and some servers want it)."""
    is_error: bool = False
    status: str = ""
    """For ``role="tool"``: how the call ended (``ok``, ``error``, ``denied``, ``interrupted``,
    ``skipped``), so a resumed session draws it as it was; empty in older sessions. Never
    sent to a model."""


class ToolSpec(BaseModel):
    model_config = DEFERRED

    name: str
    description: str
    parameters: dict[str, Any]
    """A JSON Schema object, generated from the tool's pydantic argument model."""


class ChatRequest(BaseModel):
    model_config = DEFERRED

    model: str
    system: str = ""
    messages: list[Message]
    tools: list[ToolSpec] = Field(default_factory=list)
    tool_choice: Literal["auto", "none"] = "auto"
    """"none" keeps the tools defined (a history with tool calls needs them) but forbids
    calling them: the turn-limit request for a final answer."""
    max_tokens: int | None = None
    temperature: float | None = None
