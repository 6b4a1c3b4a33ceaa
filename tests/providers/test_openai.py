"""OpenAI-compatible streams, quirk by quirk, over real HTTP from the loopback server."""

from __future__ import annotations

import itertools
import json
from typing import Any

from neocode_tui.chat import ChatRequest, Message, ToolCall, ToolSpec
from neocode_tui.collector import collect
from neocode_tui.events import ToolCallDelta, ToolCallStart
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from tests.support.model_server import Response
from tests.support.providers import API_KEY, FAST
from tests.support.sse import openai_sse, openai_turn

REQUEST = ChatRequest(model="gpt-test", messages=[Message(role="user", content="go")])


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "finish_reason": finish}
    if delta is not None:
        choice["delta"] = delta
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [choice], **extra}


def calls(*entries: dict[str, Any]) -> dict[str, Any]:
    return chunk({"tool_calls": list(entries)})


def fn(index: int | None = None, id: str | None = None, name: str | None = None,
       arguments: str | None = None, **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = dict(extra)
    if index is not None:
        entry["index"] = index
    if id is not None:
        entry["id"] = id
    function = {k: v for k, v in (("name", name), ("arguments", arguments)) if v is not None}
    if function:
        entry["function"] = function
    return entry


async def play(provider, server, body: bytes, chunk_sizes=7):
    server.enqueue(Response(body=body, chunk_sizes=chunk_sizes))
    seen = []
    turn = await collect(provider.stream(REQUEST), seen.append)
    return turn, seen


def summary(turn) -> list[tuple[int, str, str, Any]]:
    return [(c.index, c.id, c.name, c.arguments_json) for c in turn.tool_calls]


async def test_text_reasoning_and_usage_arrive_and_the_request_is_what_the_api_wants(openai, model_server) -> None:
    request = ChatRequest(
        model="gpt-test", system="be brief", max_tokens=100,
        tools=[ToolSpec(name="read_file", description="read", parameters={"type": "object"})],
        messages=[
            Message(role="user", content="read a.py"),
            Message(
                role="assistant", content="",
                tool_calls=[ToolCall(id="c1", name="read_file", arguments='{"path":"a.py"}')],
            ),
            Message(role="tool", content="print(1)", tool_call_id="c1", name="read_file"),
        ],
    )
    model_server.enqueue(Response(body=openai_turn("It prints 1.", reasoning="look", usage=(30, 4)), chunk_sizes=5))
    turn = await collect(openai.stream(request))

    assert (turn.text, turn.reasoning, turn.finish_reason) == ("It prints 1.", "look", "stop")
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (30, 4)
    sent = model_server.requests[0]
    assert (sent.method, sent.path) == ("POST", "/v1/chat/completions")
    assert sent.headers["authorization"] == f"Bearer {API_KEY}"
    assert sent.json["stream"] is True and sent.json["stream_options"] == {"include_usage": True}
    assert sent.json["max_tokens"] == 100
    assert sent.json["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "read a.py"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path":"a.py"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "print(1)"},
    ]
    assert sent.json["tools"] == [{"type": "function", "function": {
        "name": "read_file", "description": "read", "parameters": {"type": "object"}}}]


async def test_parallel_calls_whose_fragments_interleave_stay_apart(openai, model_server) -> None:
    body = openai_sse([
        chunk({"role": "assistant"}),
        calls(fn(0, "a", "read_file", ""), fn(1, "b", "grep", "")),
        calls(fn(0, arguments='{"path":')), calls(fn(1, arguments='{"pattern":')),
        calls(fn(1, arguments='"x"}')), calls(fn(0, arguments='"a.py"}')),
        chunk({}, "tool_calls"),
    ])
    turn, seen = await play(openai, model_server, body, chunk_sizes=3)
    assert summary(turn) == [(0, "a", "read_file", {"path": "a.py"}), (1, "b", "grep", {"pattern": "x"})]
    assert turn.finish_reason == "tool_calls"
    # every fragment carries the index of the call it belongs to; fragments that arrived
    # together may come joined, never across two calls
    fragments = [(e.index, e.arguments) for e in seen if isinstance(e, ToolCallDelta)]
    runs = [(index, "".join(part for _, part in run))
            for index, run in itertools.groupby(fragments, key=lambda fragment: fragment[0])]
    assert runs == [(0, '{"path":'), (1, '{"pattern":"x"}'), (0, '"a.py"}')]


async def test_a_whole_call_in_one_chunk(openai, model_server) -> None:
    body = openai_sse([calls(fn(0, "a", "bash", '{"command": "ls"}', type="function")), chunk({}, "tool_calls")])
    turn, _ = await play(openai, model_server, body)
    assert summary(turn) == [(0, "a", "bash", {"command": "ls"})]


async def test_entries_without_index_whole_calls_and_continuations(openai, model_server) -> None:
    body = openai_sse([
        calls(fn(id="g1", name="read_file", arguments='{"path": "a"}')),
        calls(fn(name="read_file", arguments='{"path":')),
        calls(fn(arguments=' "b"}')),
        chunk({}, "tool_calls"),
    ])
    turn, _ = await play(openai, model_server, body)
    assert [(c.name, c.arguments_json) for c in turn.tool_calls] == [
        ("read_file", {"path": "a"}), ("read_file", {"path": "b"})]
    assert turn.tool_calls[0].id == "g1"


async def test_first_index_one_is_our_call_zero(openai, model_server) -> None:
    body = openai_sse([calls(fn(1, "x", "glob", '{"pattern": "*.py"}')), chunk({}, "tool_calls")])
    turn, seen = await play(openai, model_server, body)
    assert summary(turn) == [(0, "x", "glob", {"pattern": "*.py"})]
    assert [e.index for e in seen if isinstance(e, ToolCallStart)] == [0]


async def test_several_calls_all_at_index_zero_with_distinct_ids(openai, model_server) -> None:
    body = openai_sse([
        calls(fn(0, "c1", "read_file", '{"path":')), calls(fn(0, "", None, '"a"}')),
        calls(fn(0, "c2", "read_file", '{"path":')), calls(fn(0, None, None, '"b"}')),
        chunk({}, "tool_calls"),
    ])
    turn, _ = await play(openai, model_server, body)
    assert summary(turn) == [(0, "c1", "read_file", {"path": "a"}), (1, "c2", "read_file", {"path": "b"})]


async def test_empty_or_null_id_and_type_on_follow_ups_and_role_on_every_chunk(openai, model_server) -> None:
    body = openai_sse([
        chunk({"role": "assistant", "content": "On it."}),
        chunk({"role": "assistant", "tool_calls": [fn(0, "c1", "bash", "", type="function")]}),
        chunk({"role": "assistant", "tool_calls": [fn(0, "", None, '{"command"', type="")]}),
        chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": None, "type": None,
                                                    "function": {"name": None, "arguments": ': "ls"}'}}]}),
        chunk({"role": "assistant"}, "tool_calls"),
    ])
    turn, _ = await play(openai, model_server, body)
    assert turn.text == "On it."
    assert summary(turn) == [(0, "c1", "bash", {"command": "ls"})]


async def test_metadata_only_entry_then_the_function(openai, model_server) -> None:
    body = openai_sse([
        calls({"index": 0, "id": "c1", "type": "function"}),
        calls(fn(0, arguments='{"a": 1}')),  # arguments before the name
        calls(fn(0, name="edit_file")),
        chunk({}, "tool_calls"),
    ])
    turn, seen = await play(openai, model_server, body)
    assert summary(turn) == [(0, "c1", "edit_file", {"a": 1})]
    assert [e.type for e in seen[:2]] == ["tool_call_start", "tool_call_delta"]


async def test_missing_ids_are_synthesised_unique_across_the_session(openai, model_server) -> None:
    body = openai_sse([calls(fn(0, None, "bash", '{"command": "ls"}')), chunk({}, "tool_calls")])
    first, _ = await play(openai, model_server, body)
    second, _ = await play(openai, model_server, body)
    ids = [first.tool_calls[0].id, second.tool_calls[0].id]
    assert all(ids) and len(set(ids)) == 2


async def test_synthesised_ids_stay_unique_when_the_provider_is_replaced(openai, model_server) -> None:
    """A model switch or a resume makes a new provider mid-session: its ids must not repeat."""
    body = openai_sse([calls(fn(0, None, "bash", '{"command": "ls"}')), chunk({}, "tool_calls")])
    replacement = HTTPProvider(OpenAIChat(), model="gpt-test", base_url=model_server.url + "/v1",
                               api_key=API_KEY, options=FAST)
    try:
        first, _ = await play(openai, model_server, body)
        second, _ = await play(replacement, model_server, body)
    finally:
        await replacement.aclose()
    assert first.tool_calls[0].id != second.tool_calls[0].id


async def test_a_call_that_never_gets_a_name_is_dropped_and_counted(openai, model_server) -> None:
    body = openai_sse([calls(fn(0, "c1", None, '{"x": 1}')), calls(fn(1, "c2", "bash", "{}")), chunk({}, "tool_calls")])
    turn, _ = await play(openai, model_server, body)
    assert [c.name for c in turn.tool_calls] == ["bash"]
    assert turn.dropped_tool_calls == 1


async def test_usage_on_a_final_chunk_with_empty_or_null_choices(openai, model_server) -> None:
    for choices in ([], None):
        body = openai_sse([
            chunk({"content": "hi"}), chunk({}, "stop"),
            {"id": "x", "choices": choices, "usage": {
                "prompt_tokens": 12, "completion_tokens": 3,
                "prompt_tokens_details": {"cached_tokens": 8},
                "completion_tokens_details": {"reasoning_tokens": 2}}},
        ])
        turn, _ = await play(openai, model_server, body)
        assert turn.usage.model_dump() == {"input_tokens": 12, "output_tokens": 3, "cached_input_tokens": 8,
                                           "cache_creation_input_tokens": None, "reasoning_tokens": 2}


async def test_usage_only_in_groq_x_groq_field(openai, model_server) -> None:
    body = openai_sse([chunk({"content": "hi"}),
                       chunk({}, "stop", x_groq={"id": "req", "usage": {"prompt_tokens": 7, "completion_tokens": 2}})])
    turn, _ = await play(openai, model_server, body)
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (7, 2)


async def test_chunks_without_delta_are_skipped(openai, model_server) -> None:
    filter_note = {"id": "x", "choices": [{"index": 0, "content_filter_results": {"hate": {"filtered": False}}}]}
    body = openai_sse([filter_note, chunk({"content": "safe"}), filter_note, chunk({}, "stop")])
    turn, _ = await play(openai, model_server, body)
    assert (turn.text, turn.error) == ("safe", None)


async def test_error_object_in_the_stream_ends_the_turn_with_its_message(openai, model_server) -> None:
    body = openai_sse([chunk({"content": "par"}),
                       {"error": {"message": "the model produced invalid output", "type": "invalid_request_error"}}])
    turn, _ = await play(openai, model_server, body)
    assert turn.error.kind == "stream"
    assert "the model produced invalid output" in turn.error.message
    assert not turn.ok


async def test_reasoning_field_and_refusal(openai, model_server) -> None:
    body = openai_sse([chunk({"reasoning": "think "}), chunk({"reasoning": "more"}),
                       chunk({"refusal": "I can't help"}), chunk({"refusal": " with that."}), chunk({}, "stop")])
    turn, _ = await play(openai, model_server, body)
    assert (turn.reasoning, turn.refusal, turn.text) == ("think more", "I can't help with that.", "")


async def test_a_body_that_ends_without_done_is_a_truncated_stream(openai, model_server) -> None:
    body = openai_sse([chunk({"content": "half an ans"}), chunk({}, "stop")], done=False)
    turn, _ = await play(openai, model_server, body)
    assert turn.error.kind == "truncated"
    assert "truncated" in turn.error.message
    assert turn.finish_reason is None


async def test_a_tool_call_with_finish_stop_still_finishes_as_tool_calls(openai, model_server) -> None:
    body = openai_sse([calls(fn(0, "c1", "bash", '{"command": "ls"}')), chunk({}, "stop")])
    turn, _ = await play(openai, model_server, body)
    assert turn.finish_reason == "tool_calls"


async def test_sse_framing_quirks_in_one_live_body(openai, model_server) -> None:
    text = json.dumps(chunk({"content": "héllo ✓ "}), ensure_ascii=False)
    head, tail = text.split(", ", 1)  # one JSON payload over two data: lines
    body = (
        b"\xef\xbb\xbf: OPENROUTER PROCESSING\r\n\r\n"
        b"id: 1\r\nretry: 3000\r\n"
        + f"data:{head},\r\ndata:{tail}\r\n\r\n".encode()
        + b": keep-alive\n\n"
        + f"data: {json.dumps(chunk({'content': 'wörld'}), ensure_ascii=False)}\r\r".encode()
        + f"data: {json.dumps(chunk({}, 'length'))}\n\n".encode()
        + b"data: [DONE]\r\n\r\n"
    )
    turn, _ = await play(openai, model_server, body, chunk_sizes=[1, 2, 3])
    assert (turn.text, turn.finish_reason) == ("héllo ✓ wörld", "length")


async def test_a_server_that_sends_a_fresh_id_with_every_fragment(openai, model_server) -> None:
    body = openai_sse([calls(fn(0, "id-1", "bash", '{"comm')), calls(fn(0, "id-2", None, 'and": "ls"}')),
                       chunk({}, "tool_calls")])
    turn, _ = await play(openai, model_server, body)
    assert summary(turn) == [(0, "id-1", "bash", {"command": "ls"})]
