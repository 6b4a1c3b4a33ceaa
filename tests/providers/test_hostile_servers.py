"""A server that misbehaves, by accident or on purpose, costs a bounded amount of memory and
time and ends the turn with a plain error, never a traceback."""

from __future__ import annotations

import asyncio
import gzip
import itertools
import json
import time
import tracemalloc
import zlib

from neocode_tui.chat import ChatRequest, Message
from neocode_tui.collector import collect
from neocode_tui.events import StreamError, StreamRetry
from neocode_tui.providers.http import HTTPOptions
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from tests.support.model_server import Response
from tests.support.sse import openai_sse, openai_turn
from tests.support.waits import PATIENCE, wait_until

REQUEST = ChatRequest(model="m", messages=[Message(role="user", content="go")])
CONTENT = b'data: {"choices":[{"index":0,"delta":{"content":"A"}}]}\n\n'


async def run(url: str, **options):
    settings = {"first_byte_timeout": PATIENCE, "idle_timeout": PATIENCE, "max_retries": 0, **options}
    provider = HTTPProvider(OpenAIChat(), model="m", base_url=url + "/v1", api_key="x",
                            options=HTTPOptions(**settings))
    seen = []
    started = time.monotonic()
    turn = await collect(provider.stream(REQUEST), seen.append)
    await provider.aclose()
    return turn, time.monotonic() - started


def endless(piece: bytes):
    return itertools.repeat(piece)


async def test_a_line_that_never_ends_stops_at_the_cap(model_server) -> None:
    model_server.enqueue(Response(body=itertools.chain([CONTENT], endless(b"x" * (1 << 20)))))
    turn, _ = await run(model_server.url)
    assert turn.error.kind == "malformed"
    assert "a line longer than 16 MiB without an end" in turn.error.message
    assert turn.text == "A"


async def test_an_event_whose_data_lines_never_end_stops_at_the_cap(model_server) -> None:
    model_server.enqueue(Response(body=itertools.chain([CONTENT], endless(b"data: " + b"y" * 4000 + b"\n"))))
    turn, _ = await run(model_server.url, max_event_bytes=1 << 20)
    assert turn.error.kind == "malformed" and "an event larger than 1 MiB" in turn.error.message


async def test_an_endless_error_body_is_read_only_as_far_as_its_message(model_server) -> None:
    head = b'{"error": {"message": "overloaded, try later", "padding": "'
    model_server.enqueue(Response(status=503, headers={"content-type": "application/json"},
                                  body=itertools.chain([head], endless(b"z" * 65536))))
    turn, seconds = await run(model_server.url)
    assert turn.error.kind == "server" and "HTTP 503" in turn.error.message
    assert len(turn.error.message) < 300 and seconds < PATIENCE  # the body never ends


async def test_a_gzip_bomb_stops_at_the_decompressed_cap(model_server) -> None:
    bomb = gzip.compress(CONTENT * 400_000, 9)  # about 22 MB from about 60 kB
    assert len(bomb) < 200_000
    model_server.enqueue(Response(headers={"content-encoding": "gzip"}, body=bomb, chunk_sizes=16384))
    turn, _ = await run(model_server.url, max_body_bytes=4 << 20)
    assert turn.error.kind == "malformed" and "passed 4 MiB" in turn.error.message


async def test_a_gzip_of_gzip_bomb_stops_at_the_cap_without_inflating_it_whole(model_server) -> None:
    inner = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    once = b"".join([inner.compress(CONTENT * 18_000) for _ in range(256)] + [inner.flush()])
    bomb = gzip.compress(once, 9)  # about 250 MB of events from a few kB
    assert len(bomb) < 20_000
    model_server.enqueue(Response(headers={"content-encoding": "gzip, gzip"}, body=bomb))
    tracemalloc.start()
    try:
        turn, _ = await run(model_server.url, max_body_bytes=4 << 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert turn.error.kind == "malformed" and "passed 4 MiB" in turn.error.message
    assert peak < 64 << 20, f"{peak >> 20} MB held to stop at 4 MiB"


async def test_a_body_in_a_coding_that_is_not_decoded_is_a_plain_error(model_server) -> None:
    model_server.enqueue(Response(headers={"content-encoding": "compress"}, body=b"\x1f\x9d\x90"))
    turn, _ = await run(model_server.url)
    assert turn.error.kind == "malformed" and "'compress', which is not decoded here" in turn.error.message
    assert model_server.requests[0].headers["accept-encoding"] == "gzip, deflate"


async def test_keep_alive_comments_do_not_count_as_a_first_event(model_server) -> None:
    model_server.enqueue(Response(body=endless(b": keep-alive\n\n"), delay=0.05))
    turn, seconds = await run(model_server.url, first_byte_timeout=0.5)
    assert turn.error.kind == "timeout" and "no response from" in turn.error.message
    assert 0.4 < seconds < PATIENCE  # the pings never end: only the timeout ends the turn


async def test_bytes_that_never_finish_a_line_do_not_keep_a_stream_alive(model_server) -> None:
    model_server.enqueue(Response(body=itertools.chain([CONTENT], endless(b"x")), delay=0.05))
    turn, seconds = await run(model_server.url, idle_timeout=0.5)
    assert turn.error.kind == "timeout" and "stalled" in turn.error.message
    assert turn.text == "A" and 0.4 < seconds < PATIENCE  # the bytes never end: the timeout does


async def test_keep_alive_comments_after_the_first_event_do_keep_it_alive(model_server) -> None:
    body = [CONTENT] + [b": thinking\n\n"] * 12 + [openai_turn("B")]
    model_server.enqueue(Response(body=body, delay=0.1))  # 1.3 s, never 1 s silent
    turn, _ = await run(model_server.url, idle_timeout=1)
    assert (turn.text, turn.error) == ("AB", None)


async def test_a_server_that_trickles_forever_meets_the_request_deadline(model_server) -> None:
    model_server.enqueue(Response(body=endless(CONTENT), delay=0.05))
    turn, seconds = await run(model_server.url, request_timeout=1.0, max_retries=3)
    assert turn.error.kind == "timeout" and "took longer than 1 s" in turn.error.message
    assert len(model_server.requests) == 1 and 0.9 < seconds < PATIENCE  # it trickles forever


async def test_a_silent_server_is_retried_once_not_every_time(model_server) -> None:
    model_server.enqueue(*[Response(body=openai_turn("late"), stall=3600)] * 4)  # never answers
    turn, _ = await run(model_server.url, first_byte_timeout=0.3, max_retries=3,
                        backoff_base=0.01)
    assert turn.error.kind == "timeout" and "gave up after 2 attempts" in turn.error.message
    # The client gives up on the second attempt maybe before the server has read it.
    await wait_until(lambda: len(model_server.requests) >= 2, what="the second attempt at the server")
    assert len(model_server.requests) == 2


async def test_wrong_types_in_usage_are_a_malformed_error_not_a_crash(model_server) -> None:
    chunk = {"choices": [], "usage": {"prompt_tokens": "many", "completion_tokens": 3}}
    model_server.enqueue(Response(body=openai_sse([{"choices": [{"delta": {"content": "hi"}}]}, chunk])))
    turn, _ = await run(model_server.url)
    assert turn.error.kind == "malformed"
    assert "usage prompt_tokens is 'many', not a token count" in turn.error.message


async def test_each_retry_says_whether_a_partial_answer_was_thrown_away(model_server) -> None:
    body = openai_turn("half an answer")
    model_server.enqueue(Response(status=429, headers={"content-type": "text/plain"}, body=b"slow down"),
                         Response(body=body, cut_after=len(body) // 2),
                         Response(body=body))
    provider = HTTPProvider(OpenAIChat(), model="m", base_url=model_server.url + "/v1", api_key="x",
                            options=HTTPOptions(max_retries=3, backoff_base=0.01, backoff_max=0.02))
    seen = []
    turn = await collect(provider.stream(REQUEST), seen.append)
    await provider.aclose()
    first, second = [event for event in seen if isinstance(event, StreamRetry)]
    assert (first.kind, first.discarded, second.kind, second.discarded) == (
        "rate_limit", False, "connection", True)
    assert first.status_line().startswith("retrying 2/4 in 0.0 s: rate limited (HTTP 429")
    assert first.status_line().endswith("slow down")
    assert second.status_line().endswith("(partial answer discarded)")
    assert turn.text == "half an answer" and not any(isinstance(e, StreamError) for e in seen)


async def test_many_connections_to_hostile_servers_leave_nothing_running(model_server) -> None:
    model_server.enqueue(*[Response(body=endless(b": ping\n\n"), delay=0.02)] * 3)
    await asyncio.gather(*[run(model_server.url, first_byte_timeout=0.3) for _ in range(3)])

    def pending() -> list[asyncio.Task[object]]:
        return [t for t in asyncio.all_tasks() if t is not asyncio.current_task()
                and "_serve" not in repr(t)]

    await wait_until(lambda: not pending(), what="the turns' tasks to end")


def test_a_huge_number_in_a_chunk_is_malformed_not_a_crash() -> None:
    from neocode_tui.providers.dialect import CallIds, EventPump
    from neocode_tui.providers.openai import OpenAIDialect

    pump = EventPump(OpenAIDialect(CallIds()))
    events = pump.feed(b"data: " + json.dumps({"choices": []}).encode()[:-1]
                       + b', "usage": {"prompt_tokens": ' + b"9" * 5000 + b"}}\n\n")
    assert [e.kind for e in events if isinstance(e, StreamError)] == ["malformed"]
