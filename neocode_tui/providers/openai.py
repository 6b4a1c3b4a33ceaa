"""OpenAI-compatible chat completions: the request body, the stream parser and the wire.

Every server that claims compatibility bends the format somewhere (Ollama, vLLM, llama.cpp,
LM Studio, DeepSeek, Groq, OpenRouter, Gemini's endpoint...). The parser routes each
tool-call fragment to a call by id first, then by the server's index, then to the latest
call, and numbers calls itself (0, 1, 2...), so missing indexes, an index starting at 1,
or several calls all sent at index 0 cannot merge two calls or split one.
"""

from __future__ import annotations

import json
import secrets as secrets_module
from dataclasses import dataclass, field
from typing import Any

from neocode_tui.chat import ChatRequest, Image, Message
from neocode_tui.events import (
    MessageDone,
    ReasoningDelta,
    RefusalDelta,
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
    empty_response,
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
from neocode_tui.providers.effort import openai_reasons
from neocode_tui.providers.gathered import Events
from neocode_tui.providers.sse import SSEEvent
from neocode_tui.providers.tool_choice import effective_tool_choice
from neocode_tui.redact import url_host
from neocode_tui.settings.compat import OpenAICompat
from neocode_tui.vocabulary import Effort


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
        self._said = False  # any text, reasoning, refusal or tool call so far

    def feed(self, event: SSEEvent, out: Events) -> None:
        data = event.data
        if data[:6] == "[DONE]":
            self._complete(out)
            return
        try:
            self._chunk(mapping(parse_json(data), "the chunk"), out)
        except Malformed as exc:
            self.done = True
            out.append(malformed(str(exc)))
        except (AttributeError, TypeError, KeyError, IndexError) as exc:
            self.done = True
            out.append(malformed(f"unexpected shape ({exc.__class__.__name__}): {data[:80]!r}"))

    def end(self, out: Events) -> None:
        self.done = True
        out.append(truncated())

    def _chunk(self, chunk: dict[str, Any], out: Events) -> None:
        error = chunk.get("error")
        if error is not None:
            self.done = True
            out.append(in_stream_error(error))
            return
        choices = chunk.get("choices")
        if choices:
            if not isinstance(choices, list):
                raise Malformed(f"choices is {type(choices).__name__}, not a list")
            choice = mapping(choices[0], "a choice")
            delta = mapping(choice.get("delta"), "delta")  # absent in content-filter chunks
            if delta:
                text = text_field(delta.get("content"), "content")
                if text:
                    self._said = True
                    out.piece(TextDelta, text)
                reasoning = delta.get("reasoning_content") or delta.get("reasoning")
                if reasoning and isinstance(reasoning, str):  # some send an object: not text
                    self._said = True
                    out.piece(ReasoningDelta, reasoning)
                refusal = text_field(delta.get("refusal"), "refusal")
                if refusal:
                    self._said = True
                    out.piece(RefusalDelta, refusal)
                calls = delta.get("tool_calls")
                if calls:
                    self._said = True
                    if not isinstance(calls, list):
                        raise Malformed(f"tool_calls is {type(calls).__name__}, not a list")
                    for entry in calls:
                        self._tool_fragment(mapping(entry, "a tool call"), out)
            reason = text_field(choice.get("finish_reason"), "finish_reason")
            if reason:
                self._finish = reason
        raw_usage = chunk.get("usage") or mapping(chunk.get("x_groq"), "x_groq").get("usage")
        if raw_usage:
            usage = _usage(mapping(raw_usage, "usage"))
            self._usage = merge_usage(self._usage, usage)
            out.append(UsageEvent.model_construct(usage=usage))

    def _tool_fragment(self, entry: dict[str, Any], out: Events) -> None:
        function = mapping(entry.get("function"), "function")
        text_field(entry.get("id"), "a tool call id")
        call = self._route(entry, function)
        name = text_field(function.get("name"), "a tool name")
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

    def _start(self, call: _Call, out: Events) -> None:
        call.started = True
        call.id = call.id or self._new_id()
        out.append(ToolCallStart.model_construct(index=call.index, id=call.id, name=call.name))
        if call.early:
            out.append(ToolCallDelta.model_construct(index=call.index, arguments="".join(call.early)))
            call.early = []

    def _complete(self, out: Events) -> None:
        self.done = True
        if not self._said and not (self._usage and self._usage.output_tokens):
            # Nothing at all, and no output counted: LiteLLM's rendering of a backend's empty
            # reply (a prompt over its context), not an answer.
            out.append(empty_response())
            return
        for call in self._calls:
            if not call.started:
                # Never named: the collector drops and counts it; it never runs.
                out.append(ToolCallDelta.model_construct(index=call.index, arguments="".join(call.early)))
            out.append(ToolCallEnd.model_construct(index=call.index))
        named = any(call.started for call in self._calls)
        out.append(MessageDone.model_construct(
            finish_reason=finish_reason(self._finish, named), usage=self._usage))


def _usage(raw: dict[str, Any]) -> Usage:
    """Counts the server reported; what it left out stays unknown (``None``)."""
    prompt_details = mapping(raw.get("prompt_tokens_details"), "prompt_tokens_details")
    completion_details = mapping(raw.get("completion_tokens_details"),
                                 "completion_tokens_details")
    cached = token_count(prompt_details.get("cached_tokens"), "cached_tokens")
    if cached is None:
        cached = token_count(raw.get("prompt_cache_hit_tokens"), "prompt_cache_hit_tokens")
    return Usage.model_construct(
        input_tokens=token_count(raw.get("prompt_tokens"), "prompt_tokens"),
        output_tokens=token_count(raw.get("completion_tokens"), "completion_tokens"),
        cached_input_tokens=cached,
        cache_creation_input_tokens=None,
        reasoning_tokens=token_count(completion_details.get("reasoning_tokens"),
                                     "reasoning_tokens"),
    )


def request_body(request: ChatRequest, compat: OpenAICompat | None = None) -> dict[str, Any]:
    """The chat-completions JSON for a request, bent the way ``compat`` says."""
    compat = compat or OpenAICompat()
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": compat.system_role, "content": request.system})
    messages += _messages(request.messages, compat)
    body: dict[str, Any] = {
        "model": request.model,
        "messages": messages,
        "stream": True,
    }
    if compat.stream_options:
        body["stream_options"] = {"include_usage": True}
    if request.tools:
        body["tools"] = [
            {"type": "function", "function": {
                "name": tool.name, "description": tool.description, "parameters": tool.parameters}}
            for tool in request.tools
        ]
        choice = _tool_choice(request, compat)
        if choice is not None:
            body["tool_choice"] = choice
        if compat.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = compat.parallel_tool_calls
    if request.max_tokens is not None:
        body[compat.max_tokens_field] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body


def _tool_choice(request: ChatRequest, compat: OpenAICompat) -> str | dict[str, Any] | None:
    choice = effective_tool_choice(request, compat.tool_choice)
    if choice in (None, "auto", "none", "required"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def _messages(transcript: list[Message], compat: OpenAICompat) -> list[dict[str, Any]]:
    """The transcript as chat messages. A tool message carries text only, so the images
    of a run of tool results follow it as user content: in the next user message, or in
    one of their own."""
    sent: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    for message in transcript:
        if message.role != "tool" and pending:
            if message.role == "user":
                sent.append(_user(message, pending))
                pending = []
                continue
            sent.append({"role": "user", "content": pending})
            pending = []
        sent.append(_message(message, compat))
        if message.role == "tool" and message.images:
            pending.append({"type": "text", "text": f"The images {message.name or 'a tool'} returned "
                                                    f"(call {message.tool_call_id}):"})
            pending += [_image_part(image) for image in message.images]
    if pending:
        sent.append({"role": "user", "content": pending})
    return sent


def _user(message: Message, before: list[dict[str, Any]]) -> dict[str, Any]:
    parts = [*before, *([{"type": "text", "text": message.content}] if message.content else [])]
    parts += [_image_part(image) for image in message.images]
    return {"role": "user", "content": parts}


def _image_part(image: Image) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{image.media_type};base64,{image.data}"}}


def _message(message: Message, compat: OpenAICompat) -> dict[str, Any]:
    if message.role == "user" and message.images:
        return _user(message, [])
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    if message.role == "assistant" and message.tool_calls:
        sent: dict[str, Any] = {"role": "assistant"}
        if message.content or compat.tool_call_content == "":
            sent["content"] = message.content
        elif compat.tool_call_content == "null":
            sent["content"] = None
        sent["tool_calls"] = [
            {"id": call.id, "type": "function",
             "function": {"name": call.name, "arguments": call.arguments}}
            for call in message.tool_calls
        ]
        return sent
    return {"role": message.role, "content": message.content}


@dataclass(frozen=True)
class OpenAIChat:
    """Chat completions on an OpenAI-compatible server; its ``base_url`` includes ``/v1``
    as in the official SDK. ``compat``: what this server needs done differently."""

    compat: OpenAICompat = field(default_factory=OpenAICompat)
    name: str = "openai"
    call_id_prefix: str = "call_neo_"
    effort_field: str = "reasoning_effort"
    effort_fix: str = ("turn it off with /effort off, or keep the effort and "
                       "NEOCODE_OPENAI_COMPAT=reasoning_effort=false to drop the field")

    def url(self, base_url: str) -> str:
        return base_url.rstrip("/") + "/chat/completions"

    def headers(self, api_key: str | None) -> dict[str, str]:
        return {"authorization": f"Bearer {api_key}"} if api_key else {}

    def fixed_fields(self, url: str) -> dict[str, Any]:
        """A ``prompt_cache_key`` of the provider's own, so a session's requests share one
        cache: by default only on api.openai.com, which routes by it."""
        wanted = self.compat.prompt_cache_key
        if not (url_host(url) == "api.openai.com" if wanted is None else wanted):
            return {}
        return {"prompt_cache_key": f"neocode-{secrets_module.token_hex(8)}"}

    def body(self, request: ChatRequest, model: str, effort: Effort | None) -> dict[str, Any]:
        body = request_body(request, self.compat)
        body["model"] = model
        if effort is not None:
            body["reasoning_effort"] = effort
        return body

    def parser(self, ids: CallIds) -> OpenAIDialect:
        return OpenAIDialect(ids)

    def takes_effort(self, model: str) -> bool:
        wanted = self.compat.reasoning_effort
        return openai_reasons(model) if wanted is None else wanted

    def fallback(self, error: StreamError) -> None:
        return None
