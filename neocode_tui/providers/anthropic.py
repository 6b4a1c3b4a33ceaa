"""Anthropic Messages: the request body, the stream parser and the wire.

The stream is typed and ordered, so the parser is a small state machine over content
blocks: text and thinking blocks become deltas, ``tool_use`` blocks become calls numbered
in the order they open. A tool's input counts as complete only at its ``content_block_stop``
and the message only at ``message_stop``; a body cut off before that is truncated, so cut-off
tool input never reaches a tool.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from neocode_tui.chat import ChatRequest, Image, Message
from neocode_tui.events import (
    MessageDone,
    ReasoningDelta,
    ReasoningSigned,
    StreamError,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    UsageEvent,
)
from neocode_tui.providers.dialect import (
    CallIds,
    Malformed,
    finish_reason,
    in_stream_error,
    malformed,
    mapping,
    merge_usage,
    parse_json,
    text_field,
    token_count,
    truncated,
)
from neocode_tui.providers.effort import add_thinking, anthropic_thinks
from neocode_tui.providers.gathered import Events
from neocode_tui.providers.prompt_cache import REFUSED, REFUSED_HINT, add_breakpoints
from neocode_tui.providers.sse import SSEEvent
from neocode_tui.providers.tool_choice import effective_tool_choice
from neocode_tui.vocabulary import Effort

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 8192
"""Anthropic requires ``max_tokens``; this is used when the request names none."""


class AnthropicDialect:
    def __init__(self, new_id: CallIds) -> None:
        self.done = False
        self._new_id = new_id
        self._tools: dict[int, int] = {}  # content block index -> our call index
        self._calls = 0
        self._last_call: tuple[str, int] | None = None  # the latest tool_use block's id, call
        self._unended: int | None = None  # a call whose block stopped, its end held back
        self._thinking: dict[Any, list[str]] = {}  # open thinking block -> signature parts
        self._redacted: dict[Any, str] = {}  # open redacted_thinking block -> its data
        self._stop_reason: str | None = None
        self._usage: Usage | None = None

    def feed(self, event: SSEEvent, out: Events) -> None:
        try:
            payload = mapping(parse_json(event.data), "the event")
            kind = text_field(payload.get("type"), "the event type") or event.event
            self._event(kind, payload, out)
        except Malformed as exc:
            self.done = True
            out.append(malformed(str(exc)))
        except (AttributeError, TypeError, KeyError, IndexError) as exc:
            self.done = True
            out.append(malformed(f"unexpected shape ({exc.__class__.__name__}): {event.data[:80]!r}"))

    def end(self, out: Events) -> None:
        self.done = True
        out.append(truncated())

    def _event(self, kind: str, payload: dict[str, Any], out: Events) -> None:
        if kind == "content_block_delta":
            self._block_delta(payload, mapping(payload["delta"], "delta"), out)
        elif kind == "content_block_start":
            self._block_start(payload["index"], mapping(payload["content_block"], "content_block"), out)
        elif kind == "content_block_stop":
            self._block_stop(payload["index"], out)
        elif kind == "message_start":
            self._add_usage(mapping(payload["message"], "message").get("usage"), out)
        elif kind == "message_delta":
            self._end_call(out)
            reason = text_field(mapping(payload.get("delta"), "delta").get("stop_reason"), "stop_reason")
            self._stop_reason = reason or self._stop_reason
            self._add_usage(payload.get("usage"), out)
        elif kind == "message_stop":
            self._end_call(out)
            self.done = True
            out.append(MessageDone.model_construct(
                finish_reason=finish_reason(self._stop_reason, bool(self._calls)),
                usage=self._usage))
        elif kind == "error":
            self.done = True
            out.append(in_stream_error(payload.get("error")))
        # "ping" and event types added later carry nothing for us.

    def _block_delta(self, payload: dict[str, Any], delta: dict[str, Any], out: Events) -> None:
        delta_type = delta.get("type")
        if delta_type == "text_delta":
            text = text_field(delta["text"], "text")
            if text:
                out.piece(TextDelta, text)
        elif delta_type == "input_json_delta":
            index = self._tools.get(payload["index"])
            partial = text_field(delta["partial_json"], "partial_json")
            if index is not None and partial:
                out.append(ToolCallDelta.model_construct(index=index, arguments=partial))
        elif delta_type == "thinking_delta":
            thinking = text_field(delta["thinking"], "thinking")
            if thinking:
                out.piece(ReasoningDelta, thinking)
        elif delta_type == "signature_delta" and payload["index"] in self._thinking:
            signature = text_field(delta.get("signature"), "signature")
            self._thinking[payload["index"]].append(signature or "")
        # citations_delta carries nothing we show or keep.

    def _block_stop(self, block_index: Any, out: Events) -> None:
        index = self._tools.get(block_index)
        if index is not None:
            self._unended = index  # ended once another block starts or the message ends
        signed = self._thinking.pop(block_index, None)
        redacted = self._redacted.pop(block_index, None)
        if signed is not None or redacted:
            out.append(ReasoningSigned.model_construct(
                signature="".join(signed or ()), redacted=redacted or ""))

    def _end_call(self, out: Events) -> None:
        if self._unended is not None:
            out.append(ToolCallEnd.model_construct(index=self._unended))
            self._unended = None

    def _block_start(self, block_index: Any, block: dict[str, Any], out: Events) -> None:
        """A tool_use block with the id of the one just before continues that call: LiteLLM
        opens a block for every fragment of a chat-completions server that repeats the
        call's id in each (llama.cpp's does)."""
        block_type = block.get("type")
        if block_type != "tool_use":
            self._end_call(out)
            self._last_call = None
        if block_type == "tool_use":
            sent_id = text_field(block.get("id"), "a tool call id")
            if sent_id and self._last_call and self._last_call[0] == sent_id:
                self._tools[block_index] = self._last_call[1]
                self._unended = None
                if block.get("input"):
                    out.append(ToolCallDelta.model_construct(
                        index=self._last_call[1], arguments=json.dumps(block["input"])))
                return
            self._end_call(out)
            call_id = sent_id or self._new_id()
            name = text_field(block.get("name"), "a tool name") or ""
            index = self._tools[block_index] = self._calls
            self._calls += 1
            self._last_call = (call_id, index)
            out.append(ToolCallStart.model_construct(index=index, id=call_id, name=name))
            if block.get("input"):  # some proxies send the whole input up front
                out.append(ToolCallDelta.model_construct(index=index, arguments=json.dumps(block["input"])))
        elif block_type == "text":
            text = text_field(block.get("text"), "text")
            if text:
                out.piece(TextDelta, text)
        elif block_type == "thinking":
            self._thinking[block_index] = [text_field(block.get("signature"), "signature") or ""]
            thinking = text_field(block.get("thinking"), "thinking")
            if thinking:
                out.piece(ReasoningDelta, thinking)
        elif block_type == "redacted_thinking":
            self._redacted[block_index] = text_field(block.get("data"), "data") or ""

    def _add_usage(self, raw: Any, out: Events) -> None:
        raw = mapping(raw, "usage")
        if not raw:
            return
        cached = token_count(raw.get("cache_read_input_tokens"), "cache_read_input_tokens")
        created = token_count(raw.get("cache_creation_input_tokens"), "cache_creation_input_tokens")
        base = token_count(raw.get("input_tokens"), "input_tokens")
        # Anthropic counts cache reads and writes apart from input_tokens; ours include them.
        parts = [count for count in (base, cached, created) if count is not None]
        usage = Usage.model_construct(
            input_tokens=sum(parts) if parts else None,
            output_tokens=token_count(raw.get("output_tokens"), "output_tokens"),
            cached_input_tokens=cached,
            cache_creation_input_tokens=created,
            reasoning_tokens=None,
        )
        self._usage = merge_usage(self._usage, usage)
        out.append(UsageEvent.model_construct(usage=usage))


def request_body(
    request: ChatRequest, *, effort: Effort | None = None, cache: bool = True,
    tool_choice: str | None = None,
) -> dict[str, Any]:
    """The Messages API JSON for a request. Tool results go back as ``tool_result`` blocks
    in a user message; consecutive messages of one role merge, as the API requires.
    ``effort``: thinking on, with its budget; ``cache``: with ``cache_control`` breakpoints;
    ``tool_choice``: the ``tool_choice`` compatibility option (``auto``, ``required``,
    ``none`` or a tool's name)."""
    messages: list[dict[str, Any]] = []
    for message in request.messages:
        role, blocks = _blocks(message)
        if not blocks:
            continue
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"] += blocks
        else:
            messages.append({"role": role, "content": blocks})
    body: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
        "messages": messages,
        "stream": True,
    }
    if request.system:
        body["system"] = request.system
    if request.tools:
        body["tools"] = [
            {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
            for tool in request.tools
        ]
        choice = effective_tool_choice(request, tool_choice)
        if choice is not None:
            body["tool_choice"] = _ANTHROPIC_CHOICES.get(choice) or {"type": "tool", "name": choice}
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if effort is not None:
        add_thinking(body, effort)
    if cache:
        add_breakpoints(body)
    else:
        for sent in messages:
            _plain_text(sent)
    return body


def _plain_text(message: dict[str, Any]) -> None:
    """Without breakpoints, a message of one text block goes as a plain string, which the API
    takes alike: a proxy that translates to chat completions (LiteLLM) passes blocks on as a
    list, and llama-cpp-python's chat templates fail on a list (an empty answer). Only then:
    a message must keep one shape from request to request, or the cached prefix breaks."""
    content = message["content"]
    if len(content) == 1 and set(content[0]) == {"type", "text"} and content[0]["type"] == "text":
        message["content"] = content[0]["text"]


_ANTHROPIC_CHOICES = {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}


def _blocks(message: Message) -> tuple[str, list[dict[str, Any]]]:
    if message.role == "tool":
        content: str | list[dict[str, Any]] = message.content
        if message.images:
            content = [{"type": "text", "text": message.content}, *map(_image_block, message.images)]
        return "user", [{"type": "tool_result", "tool_use_id": message.tool_call_id,
                         "content": content, "is_error": message.is_error}]
    blocks: list[dict[str, Any]] = [
        {"type": "redacted_thinking", "data": block.redacted} if block.redacted else
        {"type": "thinking", "thinking": block.text, "signature": block.signature}
        for block in message.thinking if block.signature or block.redacted
    ] if message.role == "assistant" else []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    blocks += map(_image_block, message.images)
    for call in message.tool_calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name,
                       "input": _tool_input(call.arguments)})
    return message.role, blocks


def _image_block(image: Image) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": image.media_type,
                                        "data": image.data}}


def _tool_input(arguments: str) -> dict[str, Any]:
    """The API wants an object; arguments that did not parse go back empty (the tool
    result already told the model what was wrong with them)."""
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class AnthropicMessages:
    """The Messages API; its ``base_url`` excludes ``/v1`` as in the official SDK.
    ``cache_control``: with breakpoints; ``tool_choice``: the ``tool_choice`` option of
    ``NEOCODE_OPENAI_COMPAT``, for a proxy in front of a server that calls tools only when
    forced."""

    cache_control: bool = True
    tool_choice: str | None = None
    name: str = "anthropic"
    call_id_prefix: str = "toolu_neo_"
    effort_field: str = "a thinking budget"
    effort_fix: str = "turn it off with /effort off (or leave out --effort / effort)"

    def url(self, base_url: str) -> str:
        return base_url.rstrip("/") + "/v1/messages"

    def headers(self, api_key: str | None) -> dict[str, str]:
        return {"anthropic-version": API_VERSION, **({"x-api-key": api_key} if api_key else {})}

    def fixed_fields(self, url: str) -> dict[str, Any]:
        return {}

    def body(self, request: ChatRequest, model: str, effort: Effort | None) -> dict[str, Any]:
        body = request_body(request, effort=effort, cache=self.cache_control,
                            tool_choice=self.tool_choice)
        body["model"] = model
        return body

    def parser(self, ids: CallIds) -> AnthropicDialect:
        return AnthropicDialect(ids)

    def takes_effort(self, model: str) -> bool:
        return anthropic_thinks(model)

    def fallback(self, error: StreamError) -> tuple[AnthropicMessages, str] | None:
        """A proxy that refuses the breakpoints (or the system prompt as blocks) is sent the
        request without them, and told to the user once."""
        if not self.cache_control or error.status is None or not REFUSED.search(error.message):
            return None
        return replace(self, cache_control=False), REFUSED_HINT
