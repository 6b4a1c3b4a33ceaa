"""Anthropic Messages streams over real HTTP from the loopback server."""

from __future__ import annotations

import re

from neocode_tui.chat import ChatRequest, Message, ToolCall, ToolSpec
from neocode_tui.collector import collect
from neocode_tui.events import StreamRetry, ToolCallEnd
from neocode_tui.providers.anthropic import AnthropicMessages
from neocode_tui.providers.http import HTTPOptions
from neocode_tui.providers.http_provider import HTTPProvider
from tests.support.model_server import Response
from tests.support.providers import API_KEY
from tests.support.sse import anthropic_sse, anthropic_turn

REQUEST = ChatRequest(model="claude-test", messages=[Message(role="user", content="go")])


async def test_thinking_text_and_tool_use_with_the_request_the_api_wants(anthropic, model_server) -> None:
    request = ChatRequest(
        model="claude-test", system="be brief",
        tools=[ToolSpec(name="read_file", description="read", parameters={"type": "object"})],
        messages=[
            Message(role="user", content="read a and b"),
            Message(role="assistant", content="Reading.", tool_calls=[
                ToolCall(id="t1", name="read_file", arguments='{"path": "a"}'),
                ToolCall(id="t2", name="read_file", arguments='{"path": "b"}')]),
            Message(role="tool", content="A", tool_call_id="t1", name="read_file"),
            Message(role="tool", content="no such file", tool_call_id="t2", name="read_file", is_error=True),
            Message(role="user", content="and now?"),
        ],
    )
    body = anthropic_turn("Both read.", [("grep", '{"pattern": "def"}')], thinking="let me see", usage=(50, 9))
    model_server.enqueue(Response(body=body, chunk_sizes=[5, 1, 11]))
    seen = []
    turn = await collect(anthropic.stream(request), seen.append)

    assert (turn.text, turn.reasoning, turn.finish_reason) == ("Both read.", "let me see", "tool_calls")
    assert [(c.index, c.id, c.name, c.arguments_json) for c in turn.tool_calls] == [
        (0, "toolu_01", "grep", {"pattern": "def"})]
    assert [e.index for e in seen if isinstance(e, ToolCallEnd)] == [0]
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (50, 9)
    sent = model_server.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == API_KEY and sent.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in sent.headers
    # Breakpoints: the tools, the system prompt and the last block of the last two user messages.
    assert sent.json["system"] == [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}]
    assert sent.json["stream"] is True and sent.json["max_tokens"] > 0
    assert sent.json["tools"] == [{"name": "read_file", "description": "read",
                                   "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}]
    assert sent.json["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "read a and b", "cache_control": {"type": "ephemeral"}}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}},
            {"type": "tool_use", "id": "t2", "name": "read_file", "input": {"path": "b"}}]},
        {"role": "user", "content": [  # consecutive tool results and the next prompt: one user message
            {"type": "tool_result", "tool_use_id": "t1", "content": "A", "is_error": False},
            {"type": "tool_result", "tool_use_id": "t2", "content": "no such file", "is_error": True},
            {"type": "text", "text": "and now?", "cache_control": {"type": "ephemeral"}}]},
    ]


async def test_cache_tokens_count_as_part_of_input(anthropic, model_server) -> None:
    body = anthropic_sse([
        ("message_start", {"message": {"usage": {"input_tokens": 5, "cache_read_input_tokens": 100,
                                                  "cache_creation_input_tokens": 20, "output_tokens": 1}}}),
        ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": "ok"}}),
        ("content_block_stop", {"index": 0}),
        ("message_delta", {"delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 40}}),
        ("message_stop", {}),
    ])
    model_server.enqueue(Response(body=body))
    turn = await collect(anthropic.stream(REQUEST))
    assert turn.usage.model_dump() == {"input_tokens": 125, "output_tokens": 40, "cached_input_tokens": 100,
                                       "cache_creation_input_tokens": 20, "reasoning_tokens": None}
    assert turn.finish_reason == "length"


async def test_an_overloaded_error_event_is_retried_and_the_retry_succeeds(model_server) -> None:
    provider = HTTPProvider(AnthropicMessages(), model="claude-test", base_url=model_server.url, api_key=API_KEY,
                            options=HTTPOptions(max_retries=2, backoff_base=0.01))
    overloaded = anthropic_sse([
        ("message_start", {"message": {"usage": {"input_tokens": 3, "output_tokens": 1}}}),
        ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": "Half"}}),
        ("error", {"error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ])
    model_server.enqueue(Response(body=overloaded), Response(body=anthropic_turn("Whole answer.")))
    seen = []
    turn = await collect(provider.stream(REQUEST), seen.append)
    await provider.aclose()

    assert (turn.text, turn.retries, turn.error) == ("Whole answer.", 1, None)
    retry = next(e for e in seen if isinstance(e, StreamRetry))
    assert (retry.attempt, retry.max_attempts) == (2, 3) and "Overloaded" in retry.reason


async def test_a_request_error_event_is_not_retried(anthropic, model_server) -> None:
    body = anthropic_sse([("error", {"error": {"type": "invalid_request_error", "message": "bad tool schema"}})])
    model_server.enqueue(Response(body=body))
    turn = await collect(anthropic.stream(REQUEST))
    assert turn.error.kind == "stream" and "bad tool schema" in turn.error.message
    assert len(model_server.requests) == 1


async def test_a_body_cut_before_message_stop_never_yields_runnable_tool_input(anthropic, model_server) -> None:
    whole = anthropic_turn("", [("write_file", '{"path": "a.py", "content": "print(1)"}')])
    fifth_fragment = [m.start() for m in re.finditer(b"event: content_block_delta", whole)][4]
    cut = whole[: fifth_fragment + 30]  # in the middle of the tool's input
    model_server.enqueue(Response(body=cut, chunk_sizes=9))
    turn = await collect(anthropic.stream(REQUEST))
    assert turn.error.kind == "truncated" and not turn.ok
    assert [c.complete for c in turn.tool_calls] == [False]
    assert turn.tool_calls[0].parse_error is not None
