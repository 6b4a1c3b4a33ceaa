"""What real servers do that the format does not promise: empty replies, long error pages,
no usage, raw newlines in arguments, and the many spellings of a full context."""

from __future__ import annotations

import json

import pytest

from neocode_tui.chat import ChatRequest, Message
from neocode_tui.collector import collect
from neocode_tui.events import (
    MessageDone,
    StreamRetry,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from neocode_tui.providers.http import HTTPOptions
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from tests.support.model_server import Response, json_response
from tests.support.sse import anthropic_sse, openai_sse, openai_turn
from tests.support.waits import PATIENCE

REQUEST = ChatRequest(model="m", messages=[Message(role="user", content="go")])
OVERFLOW_WORDS = "the conversation no longer fits the model's context: run /compact"

# The body llama-cpp-python 0.3.36 answered with when a message's content was null (cut).
LLAMA_500 = {"error": {"message": (
    "7 validation errors:\n  {'type': 'literal_error', 'loc': ('body', 'messages', 1, "
    "'ChatCompletionRequestSystemMessage', 'role'), 'msg': \"Input should be 'system'\", "
    "'input': 'assistant', 'ctx': {'expected': \"'system'\"}}\n" * 7
    + "\n  File \"llama_cpp/server/app.py\", line 376, in create_chat_completion\n"
    "    POST /v1/chat/completions"), "type": "internal_server_error", "param": None, "code": None}}


async def run(url: str, retries: int = 0):
    provider = HTTPProvider(OpenAIChat(), model="m", base_url=url + "/v1", api_key="x", options=HTTPOptions(
        first_byte_timeout=PATIENCE, idle_timeout=PATIENCE, max_retries=retries, backoff_base=0.01, backoff_max=0.02))
    seen = []
    turn = await collect(provider.stream(REQUEST), seen.append)
    await provider.aclose()
    return turn, seen


async def test_an_empty_200_is_explained_and_retried_once(model_server) -> None:
    model_server.enqueue(*[Response(body=b"")] * 4)
    turn, seen = await run(model_server.url, retries=3)
    [retry] = [e for e in seen if isinstance(e, StreamRetry)]
    assert len(model_server.requests) == 2
    assert (retry.attempt, retry.max_attempts, retry.kind) == (2, 2, "context_overflow")
    assert turn.error.kind == "context_overflow"
    assert turn.error.message.startswith(
        "the server returned an empty response: the prompt may exceed its context (try /compact), "
        "or it may not support this request's tool options")
    assert "truncated" not in turn.error.message


async def test_a_body_cut_inside_its_only_line_is_truncated_not_empty(model_server) -> None:
    model_server.enqueue(Response(body=b'data: {"choices": [{"delta": {"content": "hi'))
    turn, _ = await run(model_server.url)
    assert turn.error.kind == "truncated"


@pytest.mark.parametrize("status, payload", [
    (400, {"error": {"message": "This model's maximum context length is 128000 tokens. However, your "
                                "messages resulted in 130512 tokens.", "type": "invalid_request_error",
                     "code": "context_length_exceeded"}}),
    (400, {"type": "error", "error": {"type": "invalid_request_error",
                                      "message": "prompt is too long: 210342 tokens > 200000 maximum"}}),
    (400, {"error": {"code": 400, "message": "the request exceeds the available context size, try "
                                             "increasing it", "type": "exceed_context_size_error"}}),
    (500, {"error": {"message": "Requested tokens (9001) exceed context window of 2048",
                     "type": "internal_server_error"}}),
])
async def test_every_spelling_of_a_full_context_is_one_kind_that_says_what_to_do(
    model_server, status, payload
) -> None:
    model_server.enqueue(json_response(status, payload), Response(body=openai_turn("never")))
    turn, _ = await run(model_server.url, retries=3)
    assert turn.error.kind == "context_overflow" and len(model_server.requests) == 1
    assert OVERFLOW_WORDS in turn.error.message
    assert f"(HTTP {status})" in turn.error.message


async def test_a_full_context_reported_inside_the_stream_is_the_same_kind(model_server) -> None:
    body = openai_sse([{"error": {"message": "This model's maximum context length is 8192 tokens",
                                  "code": "context_length_exceeded"}}])
    model_server.enqueue(Response(body=body))
    turn, _ = await run(model_server.url)
    assert turn.error.kind == "context_overflow" and OVERFLOW_WORDS in turn.error.message


async def test_the_long_multi_line_llama_cpp_error_becomes_one_short_line(model_server) -> None:
    model_server.enqueue(*[json_response(500, LLAMA_500)] * 4)
    turn, seen = await run(model_server.url, retries=3)
    retries = [e for e in seen if isinstance(e, StreamRetry)]
    assert len(retries) == 3 and len(model_server.requests) == 4
    for retry in retries:
        assert "\n" not in retry.reason and len(retry.reason) <= 160 and retry.reason.endswith("…")
        assert "app.py" not in retry.reason
    assert turn.error.message.count("7 validation errors: {'type': 'literal_error'") == 1
    assert "app.py" not in turn.error.message and "\n" not in turn.error.message
    words = turn.error.message.split(": ", 2)[-1].removesuffix(" (gave up after 4 attempts)")
    assert words.endswith("…") and not words[-2].isspace()


def test_the_retry_status_line_reads_as_one_line() -> None:
    retry = StreamRetry(attempt=2, max_attempts=4, delay=1.5, reason="rate limited", kind="rate_limit")
    assert retry.status_line() == "retrying 2/4 in 1.5 s: rate limited"


async def test_usage_the_server_does_not_send_is_unknown_and_zeros_it_sends_stay_zeros(model_server) -> None:
    partial = openai_sse([{"choices": [{"delta": {"content": "hi"}, "finish_reason": "stop"}]},
                          {"choices": [], "usage": {"prompt_tokens": 0, "completion_tokens": 7}}])
    model_server.enqueue(Response(body=openai_turn("hi", usage=None)), Response(body=partial))
    nothing, _ = await run(model_server.url)
    some, _ = await run(model_server.url)
    assert nothing.usage is None
    assert some.usage.model_dump() == {"input_tokens": 0, "output_tokens": 7, "cached_input_tokens": None,
                                       "cache_creation_input_tokens": None, "reasoning_tokens": None}


def test_usage_snapshots_merge_and_turns_add_without_inventing_zeros() -> None:
    unknown = dict.fromkeys(Usage.model_fields)
    early = Usage(**{**unknown, "input_tokens": 10, "output_tokens": 1})
    late = Usage(**{**unknown, "output_tokens": 40, "reasoning_tokens": 0})
    merged = early.merged(late)
    assert (merged.input_tokens, merged.output_tokens, merged.reasoning_tokens, merged.cached_input_tokens) == (
        10, 40, 0, None)
    assert Usage(input_tokens=5).merged(Usage(input_tokens=0)).input_tokens == 5
    assert (Usage(**unknown) + Usage(**unknown)).input_tokens is None
    assert (Usage(**{**unknown, "input_tokens": 3}) + Usage(**unknown)).input_tokens == 3
    assert Usage().input_tokens == 0  # an empty tally counts zero


async def events(*items):
    for item in items:
        yield item


async def test_raw_newlines_inside_argument_strings_are_accepted() -> None:
    arguments = '{"path": "a.py", "content": "line one\nline two\n\tindented"}'
    turn = await collect(events(ToolCallStart(index=0, id="c", name="write_file"),
                                ToolCallDelta(index=0, arguments=arguments), ToolCallEnd(index=0),
                                MessageDone(finish_reason="tool_calls")))
    [call] = turn.tool_calls
    assert call.parse_error is None
    assert call.arguments_json["content"] == "line one\nline two\n\tindented"


async def test_arguments_that_are_not_json_say_so_in_plain_words() -> None:
    turn = await collect(events(ToolCallStart(index=0, id="c", name="bash"),
                                ToolCallDelta(index=0, arguments='{"command": }'),
                                MessageDone(finish_reason="tool_calls")))
    error = turn.tool_calls[0].parse_error
    assert error == "arguments are not valid JSON: Expecting value at character 12"
    assert " at at " not in error


async def test_anthropic_overflow_inside_the_stream(model_server) -> None:
    from neocode_tui.providers.anthropic import AnthropicMessages

    body = anthropic_sse([("error", {"error": {"type": "invalid_request_error",
                                               "message": "prompt is too long: 200001 tokens > 200000 maximum"}})])
    model_server.enqueue(Response(body=body))
    provider = HTTPProvider(AnthropicMessages(), model="c", base_url=model_server.url, api_key="x",
                            options=HTTPOptions(max_retries=0))
    turn = await collect(provider.stream(REQUEST))
    await provider.aclose()
    assert turn.error.kind == "context_overflow" and "/compact" in turn.error.message


def test_stream_retry_round_trips_through_json() -> None:
    from neocode_tui.events import StreamEventAdapter

    retry = StreamRetry(attempt=3, max_attempts=4, delay=2.0, reason="the server failed (HTTP 502)",
                        kind="server", discarded=True)
    assert StreamEventAdapter.validate_json(StreamEventAdapter.dump_json(retry)) == retry
    assert json.loads(StreamEventAdapter.dump_json(TextDelta(text="x"))) == {"type": "text_delta", "text": "x"}


async def test_a_rate_limit_on_tokens_per_minute_is_not_a_full_context(model_server) -> None:
    model_server.enqueue(json_response(429, {"error": {
        "message": "Rate limit reached on tokens per min (TPM): Limit 30000. Please reduce the "
                   "length of the messages or try again in 1s.", "code": "rate_limit_exceeded"}},
        headers={"retry-after": "0"}), Response(body=openai_turn("fine")))
    turn, seen = await run(model_server.url, retries=1)
    assert [e.kind for e in seen if isinstance(e, StreamRetry)] == ["rate_limit"]
    assert (turn.text, turn.error) == ("fine", None)


# What LiteLLM's proxy 1.108 streamed when llama.cpp behind it sent an empty 200.
LITELLM_EMPTY = (
    b'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"smollm2",'
    b'"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    b'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"smollm2",'
    b'"choices":[{"index":0,"delta":{}}]}\n\n'
    b"data: [DONE]\n\n")


async def test_a_proxy_that_turns_an_empty_reply_into_an_empty_answer_is_explained(model_server) -> None:
    model_server.enqueue(Response(body=LITELLM_EMPTY), Response(body=LITELLM_EMPTY))
    turn, _ = await run(model_server.url, retries=3)
    assert turn.error.kind == "context_overflow" and "empty response" in turn.error.message
    assert len(model_server.requests) == 2


async def test_an_empty_answer_the_server_counted_is_still_an_answer(model_server) -> None:
    model_server.enqueue(Response(body=openai_turn("", usage=(40, 1))))
    turn, _ = await run(model_server.url)
    assert (turn.text, turn.error, turn.finish_reason) == ("", None, "stop")
