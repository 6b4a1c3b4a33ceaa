"""OpenAI (Chat and Responses) and Anthropic SSE bodies for the model server, down to whole scripted assistant
turns whose text and arguments arrive in small deltas, the way real servers send them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from tests.support.model_server import Response


def openai_sse(chunks: Iterable[dict[str, Any]], *, done: bool = True) -> bytes:
    """``data: {chunk}`` events, then ``data: [DONE]`` unless ``done`` is False."""
    body = b"".join(b"data: %s\n\n" % json.dumps(chunk).encode() for chunk in chunks)
    return body + (b"data: [DONE]\n\n" if done else b"")


def anthropic_sse(events: Iterable[tuple[str, dict[str, Any]]]) -> bytes:
    """``event: NAME`` / ``data: {payload}`` pairs; each payload gets its ``type``."""
    return b"".join(
        b"event: %s\ndata: %s\n\n" % (name.encode(), json.dumps({"type": name, **payload}).encode())
        for name, payload in events
    )


def pieces(text: str, size: int) -> list[str]:
    """``text`` in ``size``-character deltas, the way a model streams it."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def openai_turn(
    text: str = "",
    tool_calls: Sequence[tuple[str, str]] = (),
    *,
    reasoning: str = "",
    finish: str | None = None,
    usage: tuple[int, int] | None = (10, 5),
    delta: int = 4,
    call_ids: Sequence[str] | None = None,
    model: str = "test-model",
    cached: int | None = None,
) -> bytes:
    """A whole OpenAI chat-completions assistant turn as SSE bytes.

    ``tool_calls`` are ``(name, arguments_json)``; ``finish`` defaults to ``tool_calls``
    when there are calls, else ``stop``; ``usage`` is ``(prompt, completion)`` tokens, of
    which ``cached`` prompt tokens were read from the server's cache.
    """
    base = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1, "model": model}

    def chunk(delta_: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta_, "finish_reason": finish_reason}
        return {**base, "choices": [choice]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"reasoning_content": part}) for part in pieces(reasoning, delta)]
    chunks += [chunk({"content": part}) for part in pieces(text, delta)]
    for number, (name, arguments) in enumerate(tool_calls):
        call_id = call_ids[number] if call_ids else f"call_{number + 1}"
        opening = {"index": number, "id": call_id, "type": "function",
                   "function": {"name": name, "arguments": ""}}
        chunks.append(chunk({"tool_calls": [opening]}))
        chunks += [
            chunk({"tool_calls": [{"index": number, "function": {"arguments": part}}]})
            for part in pieces(arguments, delta)
        ]
    chunks.append(chunk({}, finish or ("tool_calls" if tool_calls else "stop")))
    if usage is not None:
        prompt, completion = usage
        counts: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion,
                                  "total_tokens": prompt + completion}
        if cached is not None:
            counts["prompt_tokens_details"] = {"cached_tokens": cached}
        chunks.append({**base, "choices": [], "usage": counts})
    return openai_sse(chunks)


def anthropic_turn(
    text: str = "",
    tool_calls: Sequence[tuple[str, str]] = (),
    *,
    thinking: str = "",
    stop_reason: str | None = None,
    usage: tuple[int, int] = (10, 5),
    delta: int = 4,
    call_ids: Sequence[str] | None = None,
    model: str = "claude-test",
    cache: tuple[int, int] | None = None,
    signature: str = "c2lnbmF0dXJl",
    message_id: str = "msg_test",
) -> bytes:
    """A whole Anthropic Messages assistant turn as SSE bytes (same arguments as ``openai_turn``);
    ``cache`` is ``(read, written)`` input tokens, which Anthropic counts apart from
    ``input_tokens``; ``signature`` signs the thinking block; ``message_id`` tells responses apart as the API's do."""
    input_tokens, output_tokens = usage
    counts: dict[str, Any] = {"input_tokens": input_tokens, "output_tokens": 1}
    if cache is not None:
        counts["cache_read_input_tokens"], counts["cache_creation_input_tokens"] = cache
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"message": {
        "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": counts}})]
    block = 0

    def add_block(opening: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        nonlocal block
        events.append(("content_block_start", {"index": block, "content_block": opening}))
        events.extend(("content_block_delta", {"index": block, "delta": d}) for d in deltas)
        events.append(("content_block_stop", {"index": block}))
        block += 1

    if thinking:
        add_block({"type": "thinking", "thinking": ""},
                  [{"type": "thinking_delta", "thinking": part} for part in pieces(thinking, delta)]
                  + [{"type": "signature_delta", "signature": signature}])
    if text:
        add_block({"type": "text", "text": ""},
                  [{"type": "text_delta", "text": part} for part in pieces(text, delta)])
    events.append(("ping", {}))
    for number, (name, arguments) in enumerate(tool_calls):
        call_id = call_ids[number] if call_ids else f"toolu_{number + 1:02d}"
        add_block({"type": "tool_use", "id": call_id, "name": name, "input": {}},
                  [{"type": "input_json_delta", "partial_json": part}
                   for part in [""] + pieces(arguments, delta)])
    events.append(("message_delta", {
        "delta": {"stop_reason": stop_reason or ("tool_use" if tool_calls else "end_turn"),
                  "stop_sequence": None},
        "usage": {"output_tokens": output_tokens}}))
    events.append(("message_stop", {}))
    return anthropic_sse(events)


def spaced(body: bytes, delay: float = 0.06, **kw: Any) -> Response:
    """One SSE event per write with a pause between: deltas arrive over time, as live."""
    events = [event + b"\n\n" for event in body.split(b"\n\n") if event]
    return Response(body=events, delay=delay, **kw)


def responses_turn(text: str = "", tool_calls: Sequence[tuple[str, str, str]] = (), *,
                   usage: tuple[int, int] = (10, 5), cached: int = 0, response_id: str = "resp_test") -> bytes:
    """A whole OpenAI Responses API turn as SSE bytes, the wire API Codex speaks: the text in
    deltas, then each output item done, then ``response.completed`` with the usage;
    ``tool_calls`` are ``(call_id, name, arguments_json)``."""
    input_tokens, output_tokens = usage
    events: list[tuple[str, dict[str, Any]]] = [("response.created", {"response": {"id": response_id,
                                                                                   "status": "in_progress"}})]
    items: list[dict[str, Any]] = []
    if text:
        message_id = f"msg_{response_id}"
        events.append(("response.output_item.added", {"output_index": 0, "item": {
            "type": "message", "id": message_id, "role": "assistant", "status": "in_progress", "content": []}}))
        events.extend(("response.output_text.delta", {"item_id": message_id, "output_index": 0,
                                                       "content_index": 0, "delta": part})
                      for part in pieces(text, 4))
        items.append({"type": "message", "id": message_id, "role": "assistant", "status": "completed",
                      "content": [{"type": "output_text", "text": text, "annotations": []}]})
    items.extend({"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name,
                  "arguments": arguments, "status": "completed"} for call_id, name, arguments in tool_calls)
    events.extend(("response.output_item.done", {"output_index": index, "item": item})
                  for index, item in enumerate(items))
    events.append(("response.completed", {"response": {"id": response_id, "status": "completed", "output": items,
        "usage": {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": cached},
                  "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": input_tokens + output_tokens}}}))
    return anthropic_sse(events)  # the same ``event:``/``data:`` framing, each payload typed
