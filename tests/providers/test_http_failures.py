"""Failures are events, retried when a retry can help, and never show the API key."""

from __future__ import annotations

import asyncio
import email.utils
import json
import socket
import time

import pytest

from neocode_tui.chat import ChatRequest, Message
from neocode_tui.collector import Collector, collect
from neocode_tui.events import StreamError, StreamRetry, TextDelta
from neocode_tui.providers.http import HTTPOptions
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from tests.support.model_server import ModelServer, Response, json_response
from tests.support.providers import API_KEY
from tests.support.sse import openai_sse, openai_turn
from tests.support.waits import PATIENCE

REQUEST = ChatRequest(model="gpt-test", messages=[Message(role="user", content="go")])


def provider_for(url: str, **options) -> HTTPProvider:
    settings = {"connect_timeout": PATIENCE, "first_byte_timeout": PATIENCE, "idle_timeout": PATIENCE,
                "max_retries": 2, "backoff_base": 0.01, "backoff_max": 0.02, **options}
    return HTTPProvider(OpenAIChat(), model="gpt-test", base_url=url + "/v1", api_key=API_KEY,
                        options=HTTPOptions(**settings))


async def run(provider: HTTPProvider):
    seen = []
    turn = await collect(provider.stream(REQUEST), seen.append)
    await provider.aclose()
    return turn, seen


def messages(seen) -> list[str]:
    return [e.message if isinstance(e, StreamError) else e.reason
            for e in seen if isinstance(e, StreamError | StreamRetry)]


def timed(response: Response, arrivals: list[float]):
    def respond(_request_json) -> Response:
        arrivals.append(time.monotonic())
        return response
    return respond


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
async def test_request_errors_are_reported_with_the_servers_words_and_not_retried(model_server, status) -> None:
    model_server.enqueue(json_response(status, {"error": {
        "message": f"Incorrect API key provided: {API_KEY}. You can find your key at ...", "type": "x"}}))
    turn, seen = await run(provider_for(model_server.url))
    assert len(model_server.requests) == 1
    assert turn.error.kind == ("auth" if status in (401, 403) else "bad_request")
    assert f"HTTP {status}" in turn.error.message and "Incorrect API key provided" in turn.error.message
    assert API_KEY not in turn.error.message and "sk-test-SECRET" not in turn.error.message


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 529])
async def test_transient_statuses_are_retried_and_each_retry_is_an_event(model_server, status) -> None:
    model_server.enqueue(json_response(status, {"error": {"message": "busy, try later"}}),
                         Response(body=openai_turn("fine now")))
    turn, seen = await run(provider_for(model_server.url))
    assert (turn.text, turn.retries, turn.error) == ("fine now", 1, None)
    retry = next(e for e in seen if isinstance(e, StreamRetry))
    assert (retry.attempt, retry.max_attempts) == (2, 3)
    assert f"HTTP {status}" in retry.reason and "busy, try later" in retry.reason


async def test_when_the_attempts_are_spent_the_turn_ends_in_one_error(model_server) -> None:
    model_server.enqueue(*[json_response(503, {"error": {"message": "down"}})] * 3)
    turn, seen = await run(provider_for(model_server.url))
    assert len(model_server.requests) == 3
    assert [e.attempt for e in seen if isinstance(e, StreamRetry)] == [2, 3]
    assert turn.error.kind == "server" and "gave up after 3 attempts" in turn.error.message


async def test_retry_after_seconds_is_honoured_exactly(model_server) -> None:
    arrivals: list[float] = []
    slow_down = json_response(429, {"error": {"message": "slow down"}}, {"retry-after": "0.3"})
    model_server.enqueue(timed(slow_down, arrivals), timed(Response(body=openai_turn("ok")), arrivals))
    turn, seen = await run(provider_for(model_server.url, backoff_base=5))
    assert turn.text == "ok"
    assert next(e for e in seen if isinstance(e, StreamRetry)).delay == 0.3
    assert 0.3 <= arrivals[1] - arrivals[0] < 3  # its own wait, not the 5 s backoff base


async def test_retry_after_ms_wins_over_retry_after(model_server) -> None:
    arrivals: list[float] = []
    headers = {"retry-after-ms": "150", "retry-after": "5"}
    model_server.enqueue(
        timed(json_response(429, {}, headers), arrivals), timed(Response(body=openai_turn("ok")), arrivals)
    )
    turn, seen = await run(provider_for(model_server.url))
    assert next(e for e in seen if isinstance(e, StreamRetry)).delay == 0.15
    assert 0.15 <= arrivals[1] - arrivals[0] < 3  # not retry-after's 5 s


async def test_retry_after_as_an_http_date(model_server) -> None:
    when = email.utils.formatdate(time.time() + 1.5, usegmt=True)  # whole seconds: 0.5 to 1.5 s away
    model_server.enqueue(json_response(503, {}, {"retry-after": when}), Response(body=openai_turn("ok")))
    turn, seen = await run(provider_for(model_server.url))
    assert turn.text == "ok"
    assert 0.4 < next(e for e in seen if isinstance(e, StreamRetry)).delay <= 1.5


async def test_a_retry_after_longer_than_we_wait_is_an_error_now(model_server) -> None:
    model_server.enqueue(json_response(429, {"error": {"message": "quota"}}, {"retry-after": "3600"}))
    turn, _ = await run(provider_for(model_server.url))
    assert len(model_server.requests) == 1
    assert turn.error.kind == "rate_limit" and "3600" in turn.error.message


async def test_backoff_grows_exponentially_with_jitter(model_server) -> None:
    model_server.enqueue(*[json_response(500, {})] * 3, Response(body=openai_turn("ok")))
    turn, seen = await run(provider_for(model_server.url, max_retries=3, backoff_base=0.02, backoff_max=1))
    delays = [e.delay for e in seen if isinstance(e, StreamRetry)]
    assert turn.text == "ok" and len(delays) == 3
    for number, delay in enumerate(delays):
        assert 0.75 * 0.02 * 2**number <= delay <= 0.02 * 2**number


async def test_connection_refused_is_retried_then_reported(model_server) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    turn, seen = await run(provider_for(f"http://127.0.0.1:{port}"))
    assert [e.attempt for e in seen if isinstance(e, StreamRetry)] == [2, 3]
    assert turn.error.kind == "connection"
    assert f"could not connect to 127.0.0.1:{port}" in turn.error.message


async def test_a_dropped_connection_mid_stream_discards_the_attempt_and_retries(model_server) -> None:
    broken = openai_turn("This first try will brea", [("write_file", '{"path": "a.py", "content": "x"}')])
    model_server.enqueue(Response(body=broken, chunk_sizes=40, cut_after=len(broken) - 60),
                         Response(body=openai_turn("Second try, whole.")))
    turn, seen = await run(provider_for(model_server.url))
    retry_at = next(i for i, e in enumerate(seen) if isinstance(e, StreamRetry))
    assert any(isinstance(e, TextDelta) for e in seen[:retry_at])  # the screen saw the first try...
    assert "lost mid-stream" in seen[retry_at].reason
    assert (turn.text, turn.tool_calls, turn.retries) == ("Second try, whole.", [], 1)  # ...then dropped it


async def test_truncation_and_malformed_chunks_are_retried_as_a_whole_request(model_server) -> None:
    truncated = openai_sse([{"choices": [{"index": 0, "delta": {"content": "partial"}}]}], done=False)
    garbage = b'data: {"choices": [{"index": 0, "delta": {"content": "x"}}]}\n\ndata: {"choices": [tru\n\n'
    model_server.enqueue(Response(body=truncated), Response(body=garbage), Response(body=openai_turn("ok")))
    turn, seen = await run(provider_for(model_server.url))
    reasons = [e.reason for e in seen if isinstance(e, StreamRetry)]
    assert "truncated" in reasons[0] and "malformed" in reasons[1]
    assert (turn.text, turn.retries) == ("ok", 2)


async def test_first_byte_timeout(model_server) -> None:
    model_server.enqueue(Response(body=openai_turn("late"), stall=3600))  # never comes
    turn, _ = await run(provider_for(model_server.url, first_byte_timeout=0.2, max_retries=0))
    assert turn.error.kind == "timeout" and "no response" in turn.error.message and "0.2 s" in turn.error.message


async def test_idle_timeout_after_the_stream_started(model_server) -> None:
    body = openai_turn("stalls half way")
    model_server.enqueue(Response(body=body, stall=3600, stall_at=len(body) // 2))  # never goes on
    turn, _ = await run(provider_for(model_server.url, idle_timeout=0.2, max_retries=0))
    assert turn.error.kind == "timeout" and "stalled" in turn.error.message


async def test_keep_alive_comments_reset_the_idle_timer(model_server) -> None:
    body = openai_turn("worth the wait")
    pings = [b": keep-alive\n\n"] * 6
    split = body.index(b"\n\n") + 2  # between two events
    model_server.enqueue(Response(body=[body[:split], *pings, body[split:]], delay=0.25))
    turn, _ = await run(provider_for(model_server.url, idle_timeout=1, first_byte_timeout=1))
    # 1.75 s in all, never more than 0.25 s silent (a busy machine may add some: not 0.75 s)
    assert (turn.text, turn.error and turn.error.message) == ("worth the wait", None)


async def test_the_key_never_appears_in_any_message(model_server) -> None:
    echo = {"error": {"message": f"bad key {API_KEY} (prefix {API_KEY[:14]}...)", "key": API_KEY}}
    model_server.enqueue(json_response(500, echo), json_response(500, echo),
                         Response(body=openai_sse([{"error": {"message": f"stream says {API_KEY}"}}])))
    turn, seen = await run(provider_for(model_server.url))
    every = messages(seen) + [turn.error.message]
    assert len(every) == 4
    assert all("SECRET" not in text for text in every)


async def test_cancelling_the_turn_returns_what_arrived_and_closes_the_connection(model_server) -> None:
    body = openai_turn("first words then a long silence")
    model_server.enqueue(Response(body=body, stall=3600, stall_at=len(body) // 2))  # never ends
    provider = provider_for(model_server.url, idle_timeout=3600)
    arrived = asyncio.Event()
    collector = Collector(lambda event: arrived.set() if isinstance(event, TextDelta) else None)
    task = asyncio.create_task(collector.collect(provider.stream(REQUEST)))
    await asyncio.wait_for(arrived.wait(), PATIENCE)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, PATIENCE)
    await provider.aclose()
    turn = collector.partial()
    assert turn.cancelled and turn.text.startswith("first") and not turn.ok


async def test_a_bad_base_url_is_a_clear_error(model_server) -> None:
    turn, _ = await run(provider_for("ftp://example.invalid"))
    assert turn.error.kind == "bad_request" and "bad base URL" in turn.error.message


def test_error_bodies_are_read_in_every_common_shape() -> None:
    from neocode_tui.providers.http import server_message

    assert server_message(json.dumps({"error": {"message": "m1"}})) == "m1"
    assert server_message(json.dumps({"error": "m2"})) == "m2"
    assert server_message(json.dumps({"detail": "m3"})) == "m3"
    assert server_message(json.dumps({"type": "error", "error": {"type": "overloaded_error", "message": "m4"}})) == "m4"
    assert server_message(json.dumps({"detail": [{"loc": ["body", "x"], "msg": "field required"}]})) == "field required"
    assert server_message("<html>Bad   gateway</html>") == "Bad gateway"
    page = "<html><head><title>502 Bad Gateway</title></head><body>...</body></html>"
    assert server_message(page) == "502 Bad Gateway"


@pytest.mark.parametrize("name", ["openai", "anthropic"])
async def test_make_provider_follows_the_sdk_base_url_conventions(model_server, name) -> None:
    from neocode_tui.providers import make_provider
    from neocode_tui.settings.model import Settings
    from tests.support.sse import anthropic_turn

    base_url = model_server.url + ("/v1" if name == "openai" else "")
    settings = Settings(provider=name, base_url=base_url, model="m-1",
                        openai_api_key=API_KEY, anthropic_api_key=API_KEY)
    model_server.enqueue(Response(body=openai_turn("hi") if name == "openai" else anthropic_turn("hi")))
    provider = make_provider(settings)
    turn = await collect(provider.stream(REQUEST.model_copy(update={"model": ""})))
    await provider.aclose()
    assert (provider.name, provider.model, turn.text) == (name, "m-1", "hi")
    sent = model_server.requests[0]
    assert sent.path == ("/v1/chat/completions" if name == "openai" else "/v1/messages")
    assert sent.json["model"] == "m-1"


async def test_a_json_answer_instead_of_a_stream_is_reported_with_its_message(model_server) -> None:
    model_server.enqueue(json_response(200, {"error": {"message": "streaming is not supported for this model"}}))
    turn, _ = await run(provider_for(model_server.url))
    assert len(model_server.requests) == 1
    assert "JSON instead of an event stream" in turn.error.message
    assert "streaming is not supported" in turn.error.message


async def test_anthropic_gets_the_same_failure_handling(model_server) -> None:
    from neocode_tui.providers.anthropic import AnthropicMessages
    from tests.support.sse import anthropic_turn

    def anthropic_error(kind: str, message: str) -> dict:
        return {"type": "error", "error": {"type": kind, "message": message}}

    whole = anthropic_turn("Complete.", [("bash", '{"command": "make"}')])
    model_server.enqueue(
        json_response(529, anthropic_error("overloaded_error", "Overloaded")),
        Response(body=whole, chunk_sizes=25, cut_after=len(whole) // 2),
        Response(body=whole),
        json_response(401, anthropic_error("authentication_error", f"invalid x-api-key {API_KEY}")),
    )
    provider = HTTPProvider(AnthropicMessages(), model="claude-test", base_url=model_server.url, api_key=API_KEY,
                            options=HTTPOptions(max_retries=2, backoff_base=0.01))
    seen = []
    turn = await collect(provider.stream(REQUEST), seen.append)
    rejected = await collect(provider.stream(REQUEST))
    await provider.aclose()

    reasons = [e.reason for e in seen if isinstance(e, StreamRetry)]
    assert "overloaded (HTTP 529" in reasons[0] and "Overloaded" in reasons[0]
    assert "lost mid-stream" in reasons[1]
    assert (turn.text, [c.name for c in turn.tool_calls], turn.retries) == ("Complete.", ["bash"], 2)
    assert rejected.error.kind == "auth" and "invalid x-api-key" in rejected.error.message
    assert "SECRET" not in rejected.error.message and len(model_server.requests) == 4


@pytest.mark.parametrize("status", [301, 302, 307, 308])
async def test_a_redirect_is_reported_as_one_and_never_followed_with_the_key(
    model_server, status
) -> None:
    async with ModelServer() as elsewhere:
        target = elsewhere.url + "/v1/chat/completions"
        model_server.enqueue(Response(status=status, headers={"location": target},
                                      body=b"<html>moved</html>"))
        turn, seen = await run(provider_for(model_server.url))
        assert elsewhere.requests == []  # neither the key nor the conversation went there
    host = model_server.url.removeprefix("http://")
    assert len(model_server.requests) == 1  # not retried
    assert turn.error.kind == "bad_request"
    assert turn.error.message == (
        f"the server at {host} redirected the request to {target} (HTTP {status}); NeoCode "
        "does not follow redirects, so set the base URL (NEOCODE_BASE_URL or --base-url) to "
        "the address it names")


async def test_a_relative_redirect_names_the_whole_address(model_server) -> None:
    model_server.enqueue(Response(status=307, headers={"location": "/api/v1/chat/completions"}))
    turn, _ = await run(provider_for(model_server.url))
    assert f"redirected the request to {model_server.url}/api/v1/chat/completions (HTTP 307)" \
        in turn.error.message
async def test_errors_name_the_host_never_the_credentials_of_its_url(model_server) -> None:
    from neocode_tui.providers import make_provider
    from neocode_tui.settings.model import Settings

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    refused = Settings(provider="openai", base_url=f"http://alice:pw-3xq9Lz7Rk2@127.0.0.1:{port}/v1",
                       max_retries=1, connect_timeout=1)
    bad = Settings(provider="openai", base_url="ftp://alice:pw-3xq9Lz7Rk2@example.invalid/v1?key=k-9f2a")
    said = {}
    for name, settings in (("refused", refused), ("bad", bad)):
        turn, seen = await run(make_provider(settings))  # type: ignore[arg-type]
        said[name] = messages(seen)
        assert said[name][-1] == turn.error.message

    assert said["refused"][0].startswith(f"could not connect to 127.0.0.1:{port}")  # the retry's
    assert said["bad"] == ["bad base URL 'ftp://[redacted]@example.invalid/v1?key=[redacted]': "
                           "request URL has an unsupported protocol 'ftp://'."]
    every = " ".join(text for texts in said.values() for text in texts)
    assert not any(secret in every for secret in ("alice", "pw-3xq9", "k-9f2a"))
