"""What the providers put on the wire for caching and effort, read back from the loopback
server: Anthropic's breakpoints, OpenAI's prompt_cache_key, reasoning_effort and thinking
budgets for the models that take them, and a server's rejection of them said plainly."""

from __future__ import annotations

import json

from neocode_tui.chat import ChatRequest, Message, ThinkingBlock, ToolCall, ToolSpec
from neocode_tui.collector import collect
from neocode_tui.events import ReasoningDelta, ReasoningSigned
from neocode_tui.providers import make_provider
from neocode_tui.providers.anthropic import DEFAULT_MAX_TOKENS, AnthropicMessages
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from neocode_tui.providers.prompt_cache import MAX_BREAKPOINTS, count_breakpoints
from neocode_tui.settings.compat import OpenAICompat, parse_compat
from neocode_tui.settings.model import Settings
from tests.support.model_server import Response, json_response
from tests.support.providers import API_KEY, FAST
from tests.support.sse import anthropic_turn, openai_turn

TOOLS = [ToolSpec(name="read_file", description="read", parameters={"type": "object"}),
         ToolSpec(name="grep", description="search", parameters={"type": "object"})]


def long_history(turns: int) -> list[Message]:
    """A prompt, then ``turns`` rounds of a call and its result, then a new prompt."""
    messages = [Message(role="user", content="look around")]
    for number in range(turns):
        call = ToolCall(id=f"t{number}", name="read_file", arguments=f'{{"path": "f{number}"}}')
        messages += [Message(role="assistant", tool_calls=[call]),
                     Message(role="tool", content=f"file {number}", tool_call_id=call.id)]
    return [*messages, Message(role="user", content="and now?")]


def anthropic_provider(url: str, **kw) -> HTTPProvider:
    return HTTPProvider(AnthropicMessages(), model=kw.pop("model", "claude-test"), base_url=url,
                        api_key=API_KEY, options=FAST, **kw)


def openai_provider(url: str, *, compat: OpenAICompat | None = None, **kw) -> HTTPProvider:
    return HTTPProvider(OpenAIChat(compat or OpenAICompat()), model=kw.pop("model", "gpt-test"),
                        base_url=url + "/v1", api_key=API_KEY, options=FAST, **kw)


async def test_anthropic_marks_the_tools_the_system_and_the_last_two_user_messages(model_server) -> None:
    provider = anthropic_provider(model_server.url)
    model_server.enqueue(Response(body=anthropic_turn("ok")))
    await collect(provider.stream(ChatRequest(model="", system="be brief", tools=TOOLS,
                                              messages=long_history(30))))
    body = model_server.requests[0].json
    await provider.aclose()

    assert count_breakpoints(body) == MAX_BREAKPOINTS
    marked = {"type": "ephemeral"}
    assert body["tools"][-1]["cache_control"] == marked and "cache_control" not in body["tools"][0]
    assert body["system"] == [{"type": "text", "text": "be brief", "cache_control": marked}]
    users = [m for m in body["messages"] if m["role"] == "user"]
    assert [m["content"][-1].get("cache_control") for m in users[-3:]] == [None, marked, marked]


async def test_cache_control_off_sends_no_breakpoint(model_server) -> None:
    settings = Settings.model_validate({"NEOCODE_PROVIDER": "anthropic", "NEOCODE_BASE_URL": model_server.url,
                                        "NEOCODE_CACHE_CONTROL": "false"})
    provider = make_provider(settings)
    model_server.enqueue(Response(body=anthropic_turn("ok")))
    await collect(provider.stream(ChatRequest(model="", system="be brief", tools=TOOLS,
                                              messages=long_history(3))))
    body = model_server.requests[0].json
    await provider.aclose()

    assert "cache_control" not in json.dumps(body)
    assert body["system"] == "be brief"


async def test_a_prompt_cache_key_is_one_per_session_and_only_where_wanted(model_server) -> None:
    wanted = parse_compat("prompt_cache_key=true")
    first, second = openai_provider(model_server.url, compat=wanted), openai_provider(model_server.url, compat=wanted)
    local = openai_provider(model_server.url)  # not api.openai.com: left out by default
    request = ChatRequest(model="", messages=[Message(role="user", content="hi")])
    for provider in (first, first, second, local):
        model_server.enqueue(Response(body=openai_turn("ok")))
        await collect(provider.stream(request))
        await provider.aclose()

    keys = [sent.json.get("prompt_cache_key") for sent in model_server.requests]
    assert keys[0] and keys[0] == keys[1] and keys[2] and keys[2] != keys[0]
    assert keys[3] is None


async def test_reasoning_effort_goes_to_reasoning_models_only(model_server) -> None:
    request = ChatRequest(model="", messages=[Message(role="user", content="hi")])
    cases = [("o4-mini", None), ("gpt-5-mini", None), ("gpt-4o", None),
             ("gpt-4o", "reasoning_effort=true"), ("o3", "reasoning_effort=false")]
    for model, compat in cases:
        provider = openai_provider(model_server.url, model=model, effort="high",
                                   compat=parse_compat(compat) if compat else None)
        model_server.enqueue(Response(body=openai_turn("ok")))
        await collect(provider.stream(request))
        await provider.aclose()

    sent = [request.json.get("reasoning_effort") for request in model_server.requests]
    assert sent == ["high", "high", None, "high", None]


async def test_anthropic_thinking_budget_raises_max_tokens_for_models_that_think(model_server) -> None:
    request = ChatRequest(model="", messages=[Message(role="user", content="hi")], temperature=0.2)
    for model in ("claude-sonnet-4-5", "claude-3-5-haiku-latest"):
        provider = anthropic_provider(model_server.url, model=model, effort="medium")
        model_server.enqueue(Response(body=anthropic_turn("ok")))
        await collect(provider.stream(request))
        await provider.aclose()

    thinking, plain = (sent.json for sent in model_server.requests)
    assert thinking["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert thinking["max_tokens"] == DEFAULT_MAX_TOKENS + 8192 and "temperature" not in thinking
    assert "thinking" not in plain and plain["max_tokens"] == DEFAULT_MAX_TOKENS
    assert plain["temperature"] == 0.2


async def test_a_server_that_rejects_reasoning_effort_says_how_to_drop_it(model_server) -> None:
    provider = openai_provider(model_server.url, model="o3-mini", effort="low")
    model_server.enqueue(json_response(400, {"error": {
        "message": "Unrecognized request argument supplied: reasoning_effort"}}))
    turn = await collect(provider.stream(ChatRequest(model="", messages=[Message(role="user", content="hi")])))
    await provider.aclose()

    assert turn.error is not None and turn.error.kind == "bad_request"
    assert "Unrecognized request argument supplied: reasoning_effort" in turn.error.message
    assert "/effort off" in turn.error.message
    assert "NEOCODE_OPENAI_COMPAT=reasoning_effort=false" in turn.error.message


async def test_a_server_that_rejects_thinking_says_how_to_turn_it_off(model_server) -> None:
    provider = anthropic_provider(model_server.url, model="claude-opus-4-1", effort="high")
    model_server.enqueue(json_response(400, {"type": "error", "error": {
        "type": "invalid_request_error", "message": "thinking: Extra inputs are not permitted"}}))
    turn = await collect(provider.stream(ChatRequest(model="", messages=[Message(role="user", content="hi")])))
    await provider.aclose()

    assert turn.error is not None
    assert "thinking: Extra inputs are not permitted" in turn.error.message
    assert "thinking budget" in turn.error.message and "/effort off" in turn.error.message


async def test_thinking_blocks_come_back_signed_and_unchanged(model_server) -> None:
    provider = anthropic_provider(model_server.url, model="claude-sonnet-4-5", effort="low")
    model_server.enqueue(Response(body=anthropic_turn("", [("read_file", '{"path": "a"}')],
                                                      thinking="I should read a", signature="sig-123"),
                                  chunk_sizes=7))
    turn = await collect(provider.stream(ChatRequest(model="", messages=[Message(role="user", content="go")])))
    await provider.aclose()

    assert turn.thinking == [ThinkingBlock(text="I should read a", signature="sig-123")]
    call = turn.tool_calls[0]
    history = [
        Message(role="user", content="go"),
        Message(role="assistant", reasoning=turn.reasoning, thinking=turn.thinking,
                tool_calls=[ToolCall(id=call.id, name=call.name, arguments=call.arguments)]),
        Message(role="tool", content="A", tool_call_id=call.id),
        Message(role="assistant", thinking=[ThinkingBlock(redacted="opaque==")], content="done"),
    ]
    from neocode_tui.providers.anthropic import request_body

    body = request_body(ChatRequest(model="m", messages=history), cache=False)
    assert body["messages"][1]["content"][0] == {
        "type": "thinking", "thinking": "I should read a", "signature": "sig-123"}
    assert body["messages"][1]["content"][1]["type"] == "tool_use"
    assert body["messages"][3]["content"][0] == {"type": "redacted_thinking", "data": "opaque=="}


async def test_a_redacted_thinking_block_is_kept_as_its_data(model_server) -> None:
    from tests.support.sse import anthropic_sse

    events = [
        ("message_start", {"message": {"usage": {"input_tokens": 5, "output_tokens": 1}}}),
        ("content_block_start", {"index": 0, "content_block": {"type": "redacted_thinking", "data": "enc=="}}),
        ("content_block_stop", {"index": 0}),
        ("content_block_start", {"index": 1, "content_block": {"type": "thinking", "thinking": ""}}),
        ("content_block_delta", {"index": 1, "delta": {"type": "thinking_delta", "thinking": "hm"}}),
        ("content_block_delta", {"index": 1, "delta": {"type": "signature_delta", "signature": "s1"}}),
        ("content_block_stop", {"index": 1}),
        ("content_block_start", {"index": 2, "content_block": {"type": "text", "text": "ok"}}),
        ("content_block_stop", {"index": 2}),
        ("message_delta", {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
        ("message_stop", {}),
    ]
    model_server.enqueue(Response(body=anthropic_sse(events), chunk_sizes=3))
    provider = anthropic_provider(model_server.url)
    seen = []
    turn = await collect(provider.stream(ChatRequest(model="", messages=[Message(role="user", content="x")])),
                         seen.append)
    await provider.aclose()

    assert [type(event) for event in seen if isinstance(event, ReasoningDelta | ReasoningSigned)] == [
        ReasoningSigned, ReasoningDelta, ReasoningSigned]
    assert turn.thinking == [ThinkingBlock(redacted="enc=="), ThinkingBlock(text="hm", signature="s1")]
    assert turn.text == "ok"
