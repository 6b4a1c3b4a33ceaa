"""The Anthropic provider in front of a proxy (LiteLLM's /v1/messages) whose backend calls
tools only when forced: the ``tool_choice`` option reaches the Messages API request."""

from __future__ import annotations

import json

import pytest

from neocode_tui.chat import ChatRequest, Message, ToolCall, ToolSpec
from neocode_tui.collector import collect
from neocode_tui.events import StreamRetry, TextDelta
from neocode_tui.providers import make_provider
from neocode_tui.settings.model import Settings
from tests.support.model_server import Response, json_response
from tests.support.providers import API_KEY
from tests.support.sse import anthropic_turn

TOOLS = [ToolSpec(name="read_file", description="read", parameters={"type": "object"})]
ASKING = [Message(role="user", content="read notes.txt")]
AFTER_RESULT = [*ASKING,
                Message(role="assistant", content="", tool_calls=[
                    ToolCall(id="t1", name="read_file", arguments='{"path": "notes.txt"}')]),
                Message(role="tool", content="pelican", tool_call_id="t1", name="read_file")]


async def _sent(model_server, option: str, messages: list[Message], *, tool_choice: str = "auto") -> dict:
    settings = Settings(provider="anthropic", base_url=model_server.url, model="smollm2",
                        anthropic_api_key=API_KEY, openai_compat=option)
    provider = make_provider(settings)
    model_server.enqueue(Response(body=anthropic_turn("ok")))
    request = ChatRequest(model="", messages=messages, tools=TOOLS, tool_choice=tool_choice)
    turn = await collect(provider.stream(request))
    await provider.aclose()
    assert turn.error is None and turn.text == "ok"
    return model_server.requests[-1].json


@pytest.mark.parametrize(("option", "sent"), [
    ("tool_choice=read_file", {"type": "tool", "name": "read_file"}),
    ("tool_choice=required", {"type": "any"}),
    ("tool_choice=auto", {"type": "auto"}),
    ("tool_choice=none", {"type": "none"}),
])
async def test_the_tool_choice_option_is_sent_in_the_messages_api_shape(model_server, option, sent) -> None:
    assert (await _sent(model_server, option, ASKING))["tool_choice"] == sent


async def test_a_forced_tool_choice_is_left_out_after_tool_results(model_server) -> None:
    """Forced again after the result, the model could never stop calling the tool."""
    body = await _sent(model_server, "tool_choice=read_file", AFTER_RESULT)
    assert "tool_choice" not in body
    assert body["tools"][0]["name"] == "read_file"


async def test_without_the_option_only_the_requests_own_none_is_sent(model_server) -> None:
    assert "tool_choice" not in await _sent(model_server, "", ASKING)
    body = await _sent(model_server, "tool_choice=read_file", ASKING, tool_choice="none")
    assert body["tool_choice"] == {"type": "none"}


async def test_without_breakpoints_a_text_message_is_a_plain_string(model_server) -> None:
    """NEOCODE_CACHE_CONTROL=false: what LiteLLM in front of llama.cpp needs (a block list
    reaches llama-cpp-python's chat template as a list, and it answers nothing)."""
    settings = Settings(provider="anthropic", base_url=model_server.url, model="smollm2",
                        anthropic_api_key=API_KEY, cache_control=False)
    provider = make_provider(settings)
    model_server.enqueue(Response(body=anthropic_turn("ok")))
    await collect(provider.stream(ChatRequest(model="", system="be brief", tools=TOOLS,
                                              messages=[*AFTER_RESULT, Message(role="user", content="and?")])))
    await provider.aclose()
    body = model_server.requests[0].json
    assert body["system"] == "be brief"
    assert body["messages"][0] == {"role": "user", "content": "read notes.txt"}
    assert body["messages"][1]["content"][0]["type"] == "tool_use"
    assert [block["type"] for block in body["messages"][2]["content"]] == ["tool_result", "text"]


async def test_a_call_litellm_splits_into_blocks_with_one_id_is_one_call(anthropic, model_server) -> None:
    """LiteLLM opens a tool_use block for every fragment of llama.cpp's stream (each repeats
    the call's id and name): one call, its arguments whole, ended once."""
    from neocode_tui.events import ToolCallEnd
    from tests.support.sse import anthropic_sse

    fragments = ['{"', "path", '":', ' "', "notes", '.txt"}']
    events: list[tuple[str, dict]] = [("message_start", {"message": {"usage": {"input_tokens": 3}}})]
    for number, fragment in enumerate(fragments):
        events += [
            ("content_block_start", {"index": number, "content_block": {
                "type": "tool_use", "id": "call_0_read_file", "name": "read_file", "input": {}}}),
            ("content_block_delta", {"index": number, "delta": {"type": "input_json_delta",
                                                               "partial_json": fragment}}),
            ("content_block_stop", {"index": number})]
    events += [("content_block_start", {"index": 9, "content_block": {
                   "type": "tool_use", "id": "call_1_grep", "name": "grep", "input": {}}}),
               ("content_block_delta", {"index": 9, "delta": {"type": "input_json_delta",
                                                              "partial_json": '{"pattern": "x"}'}}),
               ("content_block_stop", {"index": 9}),
               ("message_delta", {"delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
               ("message_stop", {})]
    model_server.enqueue(Response(body=anthropic_sse(events)))
    seen: list = []
    turn = await collect(anthropic.stream(ChatRequest(model="", messages=ASKING, tools=TOOLS)), seen.append)
    assert turn.error is None and turn.finish_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments_json) for c in turn.tool_calls] == [
        ("call_0_read_file", "read_file", {"path": "notes.txt"}), ("call_1_grep", "grep", {"pattern": "x"})]
    assert [e.index for e in seen if isinstance(e, ToolCallEnd)] == [0, 1]


def _refusing_breakpoints(status: int):
    """A proxy in front of a backend that takes no ``cache_control`` (Bedrock behind LiteLLM
    answers so): every request that carries one is refused, the others answered."""
    def answer(body) -> Response:
        if "cache_control" in json.dumps(body):
            return json_response(status, {"error": {"message": "litellm.BadRequestError: "
                                                    "messages.0.content.0.cache_control: Extra inputs "
                                                    "are not permitted"}})
        return Response(body=anthropic_turn("ok"))
    return answer


@pytest.mark.parametrize("status", [400, 500])
async def test_a_proxy_refusing_breakpoints_is_asked_once_more_without_them_and_the_user_told(
    anthropic, model_server, status
) -> None:
    model_server.enqueue(*[_refusing_breakpoints(status)] * 6)
    request = ChatRequest(model="", system="be brief", messages=ASKING, tools=TOOLS)
    events = [event async for event in anthropic.stream(request)]
    retries = [event for event in events if isinstance(event, StreamRetry)]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["ok"]
    assert len(model_server.requests) == 2
    assert "NEOCODE_CACHE_CONTROL=false" in retries[0].status_line()
    assert "cache_control" not in json.dumps(model_server.requests[1].json)
    turn = await collect(anthropic.stream(request))
    assert turn.text == "ok" and len(model_server.requests) == 3  # the session goes on without them


async def test_a_refusal_that_outlives_the_breakpoints_says_how_to_turn_them_off(anthropic, model_server) -> None:
    refusal = json_response(500, {"error": {"message": "system: Input should be a valid string"}})
    model_server.enqueue(refusal, refusal, refusal)
    turn = await collect(anthropic.stream(ChatRequest(model="", system="be brief", messages=ASKING)))
    assert turn.error is not None and "NEOCODE_CACHE_CONTROL=false" in turn.error.message
    assert len(model_server.requests) == 2
