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


class ThinkingBlock(BaseModel):
    """One Anthropic thinking block as the model wrote it: sent back unchanged after a tool
    call, since the API checks ``signature`` against the text (``redacted``: the encrypted
    ``data`` of a ``redacted_thinking`` block, which has no text)."""

    model_config = DEFERRED

    text: str = ""
    signature: str = ""
    redacted: str = ""
class Image(BaseModel):
    """An image as the model is sent it: already scaled and encoded (``agent.images``).
    The session file keeps ``data`` apart, once per ``sha256`` (``agent.image_store``)."""

    model_config = DEFERRED

    media_type: str
    """``image/png``, ``image/jpeg``, ``image/gif`` or ``image/webp``."""
    data: str = Field("", repr=False)
    """The encoded bytes, base64."""
    sha256: str
    """Of the encoded bytes: the name it is stored under."""
    name: str = ""
    """Where it came from, for the screen (a file name, "clipboard")."""
    width: int
    height: int
    size: int
    """Bytes as sent (before base64)."""


class PrintedOutput(BaseModel):
    """What a command stopped part way had printed, as a live panel showed it: its last
    lines, each cut (``live_output``), and how many came before them."""

    model_config = DEFERRED

    lines: list[str]
    hidden: int = 0


class RunEnd(BaseModel):
    """How a run ended when it did not simply finish (interrupted, at the turn limit, an
    error): kept on the run's last message, so a resumed session shows the notice it showed."""

    model_config = DEFERRED

    reason: Literal["cancelled", "turn_limit", "error"]
    message: str = ""
    """The error's words (``error``)."""
    kind: str = ""
    """The error's kind (``error``), which picks the hint shown with it."""


class Message(BaseModel):
    model_config = DEFERRED

    role: Literal["user", "assistant", "tool"]
    content: str = ""
    reasoning: str = ""
    thinking: list[ThinkingBlock] = Field(default_factory=list)
    """The signed thinking blocks behind ``reasoning``, for the dialects that want them back."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    """For ``role="tool"``: the call this is the result of."""
    name: str | None = None
    """For ``role="tool"``: the tool's name (Anthropic and some servers want it)."""
    is_error: bool = False
    duration: float | None = None
    """For ``role="tool"``: seconds the tool ran, kept for the screen (never sent)."""
    images: list[Image] = Field(default_factory=list)
    """Attached to a user prompt or a tool result; sent after ``content``."""
    status: str = ""
    """For ``role="tool"``: how the call ended (``ok``, ``error``, ``denied``, ``interrupted``,
    ``skipped``), so a resumed session draws it as it was; empty in older sessions. For
    ``role="assistant"``: the finish reason of an answer cut short (a key of
    ``vocabulary.CUT_SHORT``). Never sent to a model."""
    output: PrintedOutput | None = None
    """For ``role="tool"`` of a command stopped while it ran: what it had printed (never sent)."""
    ended: RunEnd | None = None
    """The run ended after this message otherwise than done (never sent)."""
    thought_for: float | None = None
    """For ``role="assistant"``: seconds the model thought, for the screen (never sent)."""
    job: str = ""
    """For ``role="tool"``: the background command the call went on as (its id; never sent)."""
    model: str = ""
    """For ``role="assistant"``: the fallback model that wrote it, when the session's model
    could not (never sent)."""
    notice: bool = False
    """For ``role="user"``: NeoCode's own note to the model (a background command ended),
    not the user's words; a resumed session draws it as a notice."""
    ran: list[Message] = Field(default_factory=list)
    """For ``role="user"``: a command's ``!`command``` lines, run before it was sent (their
    output is in ``content``): an assistant message of their ``bash`` calls, then each one's
    result, so a resumed session draws them as they were shown (never sent)."""


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
