"""OpenAI-compatible chat completions: the request body and the stream parser.

Every server that claims compatibility bends the format somewhere (Ollama, vLLM, llama.cpp,
LM Studio, DeepSeek, Groq, OpenRouter, Gemini's endpoint...). The parser routes each
tool-call fragment to a call by id first, then by the server's index, then to the latest
call, and numbers calls itself (0, 1, 2...), so missing indexes, an index starting at 1,
or several calls all sent at index 0 cannot merge two calls or split one.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from neocode_tui.chat import ChatRequest, Message
from neocode_tui.events import (
    MessageDone,
    ReasoningDelta,
    RefusalDelta,
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


class _Call:
    __slots__ = ("index", "id", "name", "started", "early")

    def __init__(self, index: int, call_id: str) -> None:
        self.index = index
        self.id = call_id
        self.name = ""
        self.started = False
        self.early: list[str] = []  # argument fragments that came before the name


class OpenAIDialect:
    """Parses one chat-completions stream. The message ends at ``data: [DONE]``; a body
    that ends without it is truncated, whatever came before."""

    def __init__(self, new_id: CallIds) -> None:
        self.done = False
        self._new_id = new_id
        self._calls: list[_Call] = []
        self._by_id: dict[str, _Call] = {}
        self._by_slot: dict[Any, _Call] = {}
        self._finish: str | None = None
        self._usage: Usage | None = None

    def feed(self, event: SSEEvent, out: list[StreamEvent]) -> None:
        data = event.data
        if data[:6] == "[DONE]":
            self._complete(out)
            return
        try:
            chunk = json.loads(data)
        except ValueError:
            self.done = True
            out.append(malformed(f"not JSON: {data[:80]!r}"))
            return
        try:
            self._chunk(chunk, out)
        except (AttributeError, TypeError, KeyError, IndexError) as exc:
            self.done = True
            out.append(malformed(f"unexpected shape ({exc.__class__.__name__}): {data[:80]!r}"))

    def end(self, out: list[StreamEvent]) -> None:
        self.done = True
        out.append(truncated())

    def _chunk(self, chunk: dict[str, Any], out: list[StreamEvent]) -> None:
        error = chunk.get("error")
        if error is not None:
            self.done = True
            out.append(in_stream_error(error))
            return
        choices = chunk.get("choices")
        if choices:
            choice = choices[0]
            delta = choice.get("delta")  # absent in content-filter annotation chunks
            if delta:
                text = delta.get("content")
                if text:
                    out.append(TextDelta.model_construct(text=text))
                reasoning = delta.get("reasoning_content") or delta.get("reasoning")
                if reasoning and isinstance(reasoning, str):
                    out.append(ReasoningDelta.model_construct(text=reasoning))
                refusal = delta.get("refusal")
                if refusal:
                    out.append(RefusalDelta.model_construct(text=refusal))
                calls = delta.get("tool_calls")
                if calls:
                    for entry in calls:
                        self._tool_fragment(entry, out)
            reason = choice.get("finish_reason")
            if reason:
                self._finish = reason
        raw_usage = chunk.get("usage") or (chunk.get("x_groq") or {}).get("usage")
        if raw_usage:
            usage = _usage(raw_usage)
            self._usage = merge_usage(self._usage, usage)
            out.append(UsageEvent.model_construct(usage=usage))

    def _tool_fragment(self, entry: dict[str, Any], out: list[StreamEvent]) -> None:
        function = entry.get("function") or {}
        call = self._route(entry, function)
        name = function.get("name")
        if name and not call.name:
            call.name = name
        arguments = function.get("arguments")
        if arguments is not None and not isinstance(arguments, str):
            arguments = json.dumps(arguments)  # a few servers send the object itself
        if call.started:
            if arguments:
                out.append(ToolCallDelta.model_construct(index=call.index, arguments=arguments))
            return
        if arguments:
            call.early.append(arguments)
        if call.name:
            self._start(call, out)

    def _route(self, entry: dict[str, Any], function: dict[str, Any]) -> _Call:
        """The call this fragment belongs to: by id, else by the server's index, else the
        latest call. A fragment that names a tool under a new id or without an index opens
        a new call; a nameless argument fragment under a new id continues its index's call."""
        call_id = entry.get("id") or ""
        slot = entry.get("index")
        if call_id:
            call = self._by_id.get(call_id)
            if call is None:
                current = self._by_slot.get(slot) if slot is not None else None
                if current is not None and not current.id:
                    current.id = call_id  # the id came after the first fragment
                    call = current
                elif current is not None and function.get("arguments") and not function.get("name"):
                    call = current  # a server that sends a fresh id with every fragment
                else:
                    call = self._open(call_id)
                self._by_id[call_id] = call
        elif slot is not None:
            call = self._by_slot.get(slot) or self._open("")
        elif function.get("name") or not self._calls:
            call = self._open("")
        else:
            call = self._calls[-1]
        if slot is not None:
            self._by_slot[slot] = call
        return call

    def _open(self, call_id: str) -> _Call:
        call = _Call(len(self._calls), call_id)
        self._calls.append(call)
        return call

    def _start(self, call: _Call, out: list[StreamEvent]) -> None:
        call.started = True
        call.id = call.id or self._new_id()
        out.append(ToolCallStart.model_construct(index=call.index, id=call.id, name=call.name))
        if call.early:
            out.append(ToolCallDelta.model_construct(index=call.index, arguments="".join(call.early)))
            call.early = []

    def _complete(self, out: list[StreamEvent]) -> None:
        self.done = True
        for call in self._calls:
            if not call.started:
                # Never named: the collector drops and counts it; it never runs.
                out.append(ToolCallDelta.model_construct(index=call.index, arguments="".join(call.early)))
            out.append(ToolCallEnd.model_construct(index=call.index))
        named = any(call.started for call in self._calls)
        out.append(MessageDone.model_construct(
            finish_reason=finish_reason(self._finish, named), usage=self._usage))


def _usage(raw: dict[str, Any]) -> Usage:
    prompt_details = raw.get("prompt_tokens_details") or {}
    completion_details = raw.get("completion_tokens_details") or {}
    return Usage.model_construct(
        input_tokens=raw.get("prompt_tokens") or 0,
        output_tokens=raw.get("completion_tokens") or 0,
        cached_input_tokens=prompt_details.get("cached_tokens")
        or raw.get("prompt_cache_hit_tokens")  # DeepSeek
        or 0,
        cache_creation_input_tokens=0,
        reasoning_tokens=completion_details.get("reasoning_tokens") or 0,
    )


def request_body(request: ChatRequest) -> dict[str, Any]:
    """The chat-completions JSON for a request."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    messages += [_message(message) for message in request.messages]
    body: dict[str, Any] = {
        "model": request.model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = [
            {"type": "function", "function": {
                "name": tool.name, "description": tool.description, "parameters": tool.parameters}}
            for tool in request.tools
        ]
        if request.tool_choice == "none":
            body["tool_choice"] = "none"
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body


def _message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    if message.role == "assistant" and message.tool_calls:
        return {
            "role": "assistant",
            "content": message.content or None,
            "tool_calls": [
                {"id": call.id, "type": "function",
                 "function": {"name": call.name, "arguments": call.arguments}}
                for call in message.tool_calls
            ],
        }
    return {"role": message.role, "content": message.content}


class OpenAIProvider:
    """An OpenAI-compatible server; ``base_url`` includes ``/v1`` as in the official SDK."""

    name = "openai"

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
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._ids = CallIds(live=True)
        self._http = HTTPStreamer(options, client=client, secrets=[api_key])

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        body = request_body(request)
        body["model"] = request.model or self.model
        return self._http.stream(self._url, self._headers, body, lambda: OpenAIDialect(self._ids))

    async def aclose(self) -> None:
        await self._http.aclose()
