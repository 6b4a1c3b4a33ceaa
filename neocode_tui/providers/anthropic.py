"""Anthropic Messages: the request body and the stream parser.

The stream is typed and ordered, so the parser is a small state machine over content
blocks: text and thinking blocks become deltas, ``tool_use`` blocks become calls numbered
in the order they open. A tool's input counts as complete only at its ``content_block_stop``
and the message only at ``message_stop``; a body cut off before that is truncated, so cut-off
tool input never reaches a tool.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from neocode_tui.chat import ChatRequest, Message
from neocode_tui.events import (
    MessageDone,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    UsageEvent,
)
from neocode_tui.providers.dialect import (
    CallIds,
    finish_reason,
    in_stream_error,
    malformed,
    merge_usage,
    truncated,
)
from neocode_tui.providers.sse import SSEEvent

if TYPE_CHECKING:
    import httpx

    from neocode_tui.providers.http import HTTPOptions

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 8192
"""Anthropic requires ``max_tokens``; this is used when the request names none."""


class AnthropicDialect:
    def __init__(self, new_id: CallIds) -> None:
        self.done = False
        self._new_id = new_id
        self._tools: dict[int, int] = {}  # content block index -> our call index
        self._stop_reason: str | None = None
        self._usage: Usage | None = None

    def feed(self, event: SSEEvent, out: list[StreamEvent]) -> None:
        try:
            payload = json.loads(event.data)
        except ValueError:
            self.done = True
            out.append(malformed(f"not JSON: {event.data[:80]!r}"))
            return
        try:
            self._event(payload.get("type") or event.event, payload, out)
        except (AttributeError, TypeError, KeyError, IndexError) as exc:
            self.done = True
            out.append(malformed(f"unexpected shape ({exc.__class__.__name__}): {event.data[:80]!r}"))

    def end(self, out: list[StreamEvent]) -> None:
        self.done = True
        out.append(truncated())

    def _event(self, kind: str, payload: dict[str, Any], out: list[StreamEvent]) -> None:
        if kind == "content_block_delta":
            delta = payload["delta"]
            delta_type = delta.get("type")
            if delta_type == "text_delta":
                if delta["text"]:
                    out.append(TextDelta.model_construct(text=delta["text"]))
            elif delta_type == "input_json_delta":
                index = self._tools.get(payload["index"])
                if index is not None and delta["partial_json"]:
                    out.append(ToolCallDelta.model_construct(index=index, arguments=delta["partial_json"]))
            elif delta_type == "thinking_delta":
                if delta["thinking"]:
                    out.append(ReasoningDelta.model_construct(text=delta["thinking"]))
            # signature_delta and citations_delta carry nothing we show or keep.
        elif kind == "content_block_start":
            self._block_start(payload["index"], payload["content_block"], out)
        elif kind == "content_block_stop":
            index = self._tools.get(payload["index"])
            if index is not None:
                out.append(ToolCallEnd.model_construct(index=index))
        elif kind == "message_start":
            self._add_usage(payload["message"].get("usage"), out)
        elif kind == "message_delta":
            self._stop_reason = (payload.get("delta") or {}).get("stop_reason") or self._stop_reason
            self._add_usage(payload.get("usage"), out)
        elif kind == "message_stop":
            self.done = True
            out.append(MessageDone.model_construct(
                finish_reason=finish_reason(self._stop_reason, bool(self._tools)),
                usage=self._usage))
        elif kind == "error":
            self.done = True
            out.append(in_stream_error(payload.get("error")))
        # "ping" and event types added later carry nothing for us.

    def _block_start(self, block_index: int, block: dict[str, Any], out: list[StreamEvent]) -> None:
        block_type = block.get("type")
        if block_type == "tool_use":
            index = self._tools[block_index] = len(self._tools)
            out.append(ToolCallStart.model_construct(
                index=index, id=block.get("id") or self._new_id(), name=block.get("name") or ""))
            if block.get("input"):  # some proxies send the whole input up front
                out.append(ToolCallDelta.model_construct(index=index, arguments=json.dumps(block["input"])))
        elif block_type == "text" and block.get("text"):
            out.append(TextDelta.model_construct(text=block["text"]))
        elif block_type == "thinking" and block.get("thinking"):
            out.append(ReasoningDelta.model_construct(text=block["thinking"]))

    def _add_usage(self, raw: dict[str, Any] | None, out: list[StreamEvent]) -> None:
        if not raw:
            return
        cached = raw.get("cache_read_input_tokens") or 0
        created = raw.get("cache_creation_input_tokens") or 0
        usage = Usage.model_construct(
            # Anthropic counts cache reads and writes apart from input_tokens; ours include them.
            input_tokens=(raw.get("input_tokens") or 0) + cached + created,
            output_tokens=raw.get("output_tokens") or 0,
            cached_input_tokens=cached,
            cache_creation_input_tokens=created,
            reasoning_tokens=0,
        )
        self._usage = merge_usage(self._usage, usage)
        out.append(UsageEvent.model_construct(usage=usage))


def request_body(request: ChatRequest) -> dict[str, Any]:
    """The Messages API JSON for a request. Tool results go back as ``tool_result`` blocks
    in a user message; consecutive messages of one role merge, as the API requires."""
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
        if request.tool_choice == "none":
            body["tool_choice"] = {"type": "none"}
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body


def _blocks(message: Message) -> tuple[str, list[dict[str, Any]]]:
    if message.role == "tool":
        return "user", [{"type": "tool_result", "tool_use_id": message.tool_call_id,
                         "content": message.content, "is_error": message.is_error}]
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name,
                       "input": _tool_input(call.arguments)})
    return message.role, blocks


def _tool_input(arguments: str) -> dict[str, Any]:
    """The API wants an object; arguments that did not parse go back empty (the tool
    result already told the model what was wrong with them)."""
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class AnthropicProvider:
    """The Messages API; ``base_url`` excludes ``/v1`` as in the official SDK."""

    name = "anthropic"

    def __init__(
        self,
        *,
        model: str,
        base_url: str,
        api_key: str | None,
        options: HTTPOptions | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        from neocode_tui.providers.http import HTTPStreamer  # replay needs the parser only

        self.model = model
        self._url = base_url.rstrip("/") + "/v1/messages"
        self._headers = {"anthropic-version": API_VERSION}
        if api_key:
            self._headers["x-api-key"] = api_key
        self._ids = CallIds("toolu_neo_", live=True)
        self._http = HTTPStreamer(options, client=client, secrets=[api_key])

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        body = request_body(request)
        body["model"] = request.model or self.model
        return self._http.stream(self._url, self._headers, body, lambda: AnthropicDialect(self._ids))

    async def aclose(self) -> None:
        await self._http.aclose()
