"""Rate-limit headers, from a real server on 127.0.0.1, become one event; a 429 waits for
the reset it names, up to rate_limit_max_wait."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from neocode_tui.chat import ChatRequest, Message
from neocode_tui.collector import collect
from neocode_tui.events import RateLimits, StreamRetry
from neocode_tui.providers.anthropic import AnthropicMessages
from neocode_tui.providers.http import HTTPOptions
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from tests.support.model_server import Response, json_response
from tests.support.providers import API_KEY
from tests.support.sse import anthropic_turn, openai_turn
from tests.support.waits import PATIENCE

REQUEST = ChatRequest(model="test-model", messages=[Message(role="user", content="go")])
OPENAI_HEADERS = {"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "20",
                  "x-ratelimit-reset-requests": "6m0s", "x-ratelimit-limit-tokens": "30000",
                  "x-ratelimit-remaining-tokens": "29000", "x-ratelimit-reset-tokens": "20ms"}


def options(**changes) -> HTTPOptions:
    return HTTPOptions(**{"connect_timeout": PATIENCE, "first_byte_timeout": PATIENCE,
                          "idle_timeout": PATIENCE, "max_retries": 2, **changes})


def openai(url: str, **changes) -> HTTPProvider:
    return HTTPProvider(OpenAIChat(), model="test-model", base_url=url + "/v1", api_key=API_KEY,
                        options=options(**changes))


async def run(provider: HTTPProvider):
    seen = []
    turn = await collect(provider.stream(REQUEST), seen.append)
    await provider.aclose()
    return turn, seen


def limits_in(seen) -> list[RateLimits]:
    return [event for event in seen if isinstance(event, RateLimits)]


async def test_openai_headers_become_windows_before_the_answer(model_server) -> None:
    model_server.enqueue(Response(headers=OPENAI_HEADERS, body=openai_turn("ok")))
    before = time.time()
    turn, seen = await run(openai(model_server.url))
    assert turn.text == "ok" and isinstance(seen[0], RateLimits)
    requests, tokens = seen[0].windows
    assert (requests.name, requests.limit, requests.remaining, requests.left) == ("requests", 500, 20, 0.04)
    assert before + 360 <= requests.resets_at <= time.time() + 360
    assert (tokens.name, tokens.remaining) == ("tokens", 29000)
    assert before + 0.02 <= tokens.resets_at <= time.time() + 0.02


async def test_anthropic_headers_and_a_plans_windows(model_server) -> None:
    reset = datetime.fromtimestamp(round(time.time()) + 42, UTC).isoformat().replace("+00:00", "Z")
    five_hours = str(round(time.time()) + 3600)
    model_server.enqueue(Response(headers={
        "anthropic-ratelimit-input-tokens-limit": "40000", "anthropic-ratelimit-input-tokens-remaining": "4000",
        "anthropic-ratelimit-input-tokens-reset": reset,
        "anthropic-ratelimit-unified-5h-utilization": "0.42", "anthropic-ratelimit-unified-5h-reset": five_hours,
    }, body=anthropic_turn("ok")))
    provider = HTTPProvider(AnthropicMessages(cache_control=False), model="claude-test",
                            base_url=model_server.url, api_key=API_KEY, options=options())
    turn, seen = await run(provider)
    assert turn.text == "ok"
    (limits,) = limits_in(seen)
    tokens, plan = limits.windows
    when = datetime.fromisoformat(reset).timestamp()
    assert (tokens.name, tokens.left, tokens.resets_at) == ("input_tokens", 0.1, when)
    assert (plan.name, plan.used, plan.resets_at) == ("five_hour", 0.42, float(five_hours))


async def test_a_reply_without_rate_limit_headers_has_no_event(model_server) -> None:
    model_server.enqueue(Response(body=openai_turn("ok")))
    _, seen = await run(openai(model_server.url))
    assert limits_in(seen) == []


async def test_a_429_longer_than_the_usual_retry_limit_waits_for_its_reset(model_server) -> None:
    told = json_response(429, {"error": {"message": "tokens per minute"}}, {"retry-after": "0.6"})
    model_server.enqueue(told, Response(body=openai_turn("ok")))
    started = time.monotonic()
    turn, seen = await run(openai(model_server.url, max_retry_after=0.1, rate_limit_max_wait=5))
    assert turn.text == "ok" and time.monotonic() - started >= 0.6
    (retry,) = [event for event in seen if isinstance(event, StreamRetry)]
    assert (retry.kind, retry.delay) == ("rate_limit", 0.6)


async def test_a_429_longer_than_rate_limit_max_wait_fails_at_once_saying_so(model_server) -> None:
    model_server.enqueue(json_response(429, {"error": {"message": "quota"}}, {"retry-after": "120"}))
    turn, _ = await run(openai(model_server.url, rate_limit_max_wait=60))
    assert len(model_server.requests) == 1
    assert turn.error.kind == "rate_limit"
    assert "asks to wait 120 s, longer than the 60 s NeoCode waits (rate_limit_max_wait)" in turn.error.message


@pytest.mark.parametrize("reset", ["0.5s", "500ms"])
async def test_a_429_without_retry_after_waits_for_the_used_up_windows_reset(model_server, reset) -> None:
    headers = {"x-ratelimit-limit-tokens": "1000", "x-ratelimit-remaining-tokens": "0",
               "x-ratelimit-reset-tokens": reset}
    model_server.enqueue(json_response(429, {"error": {"message": "slow down"}}, headers),
                         Response(body=openai_turn("ok")))
    turn, seen = await run(openai(model_server.url, backoff_base=30, backoff_max=30))
    assert turn.text == "ok"
    (retry,) = [event for event in seen if isinstance(event, StreamRetry)]
    assert 0.3 < retry.delay <= 0.5  # the window's reset, not the 30 s backoff
    assert limits_in(seen)[0].windows[0].left == 0
