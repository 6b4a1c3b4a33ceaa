"""What arrives together travels together: the body read ahead, adjacent deltas joined.

A fast server's events reach the consumer in as few events as they arrived in; a slow
server's each reach it as soon as they arrive; the text, the order and the call each
fragment belongs to never change.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest

from neocode_tui.chat import ChatRequest, Message
from neocode_tui.collector import collect
from neocode_tui.events import ReasoningDelta, TextDelta, ToolCallDelta, ToolCallStart, Usage, UsageEvent, joined
from neocode_tui.providers.read_ahead import ReadAhead
from tests.support.model_server import Response
from tests.support.sse import openai_turn

REQUEST = ChatRequest(model="gpt-test", messages=[Message(role="user", content="go")])


async def test_everything_that_arrived_is_taken_at_once() -> None:
    async def body() -> AsyncIterator[bytes]:
        for number in range(100):
            yield b"%d," % number
        await asyncio.Event().wait()  # the server goes quiet

    reader = ReadAhead(body())
    taken = await reader.take()
    await reader.aclose()
    assert taken == b"".join(b"%d," % number for number in range(100))


async def test_a_slow_body_is_handed_over_chunk_by_chunk_as_it_comes() -> None:
    more = asyncio.Event()

    async def body() -> AsyncIterator[bytes]:
        yield b"first"
        await more.wait()
        yield b"second"

    reader = ReadAhead(body())
    assert await reader.take() == b"first"  # not held back for what follows
    more.set()
    assert await reader.take() == b"second"
    assert await reader.take() is None
    assert await reader.take() is None


async def test_a_failure_comes_after_the_bytes_read_before_it() -> None:
    async def body() -> AsyncIterator[bytes]:
        yield b"a"
        yield b"b"
        raise httpx.ReadError("connection reset")

    reader = ReadAhead(body())
    assert await reader.take() == b"ab"
    with pytest.raises(httpx.ReadError, match="reset"):
        await reader.take()
    assert await reader.take() is None


async def test_reading_ahead_stops_at_its_limit_until_the_reader_takes() -> None:
    produced = 0

    async def body() -> AsyncIterator[bytes]:
        nonlocal produced
        while True:
            produced += 1
            yield b"12345"

    reader = ReadAhead(body(), limit=10)
    assert await reader.take() == b"1234512345" and produced == 2  # it stopped at the limit
    assert await reader.take() == b"1234512345" and produced == 4  # and went on once taken
    await reader.aclose()


async def test_closing_stops_the_read_of_a_body_that_never_ends() -> None:
    stopped = asyncio.Event()

    async def body() -> AsyncIterator[bytes]:
        try:
            yield b"x"
            await asyncio.Event().wait()
        finally:
            stopped.set()

    reader = ReadAhead(body())
    assert await reader.take() == b"x"
    await reader.aclose()
    assert stopped.is_set()


async def test_a_body_that_ended_and_is_closing_itself_is_let_finish_when_closed() -> None:
    # httpx gives a connection back to its pool as the last read returns: cut there, the
    # connection would stay busy for good.
    ended, release = asyncio.Event(), asyncio.Event()
    given_back = []

    async def body() -> AsyncIterator[bytes]:
        yield b"last"
        ended.set()
        await release.wait()  # the pool's lock, the socket's state
        given_back.append(True)

    reader = ReadAhead(body(), closing=ended.is_set)
    assert await reader.take() == b"last"
    await ended.wait()
    closing = asyncio.create_task(reader.aclose())
    release.set()
    await closing
    assert given_back == [True]


def test_adjacent_deltas_of_one_stream_join_and_nothing_else_moves() -> None:
    usage = UsageEvent(usage=Usage(input_tokens=3))
    events = [
        ReasoningDelta(text="thin"), ReasoningDelta(text="king"), TextDelta(text="He"),
        TextDelta(text="llo"), ToolCallStart(index=0, id="a", name="grep"),
        ToolCallDelta(index=0, arguments='{"pa'), ToolCallDelta(index=0, arguments='ttern":'),
        ToolCallDelta(index=1, arguments="{}"), ToolCallDelta(index=0, arguments='"x"}'), usage,
        TextDelta(text="!"),
    ]
    assert joined(events) == [
        ReasoningDelta(text="thinking"), TextDelta(text="Hello"), ToolCallStart(index=0, id="a", name="grep"),
        ToolCallDelta(index=0, arguments='{"pattern":'), ToolCallDelta(index=1, arguments="{}"),
        ToolCallDelta(index=0, arguments='"x"}'), usage, TextDelta(text="!"),
    ]


async def test_a_fast_server_s_events_reach_the_consumer_joined(openai, model_server) -> None:
    text = "".join(f"word{number} " for number in range(200))
    arguments = json.dumps({"pattern": "x" * 400})
    body = openai_turn(text, [("grep", arguments)], delta=4)
    events = body.split(b"\n\n")  # every event its own HTTP chunk, written one after another
    model_server.enqueue(Response(body=[event + b"\n\n" for event in events if event]))
    seen: list[object] = []
    turn = await collect(openai.stream(REQUEST), seen.append)
    assert turn.text == text and turn.tool_calls[0].arguments_json == {"pattern": "x" * 400}
    deltas = [event for event in seen if isinstance(event, TextDelta | ToolCallDelta)]
    assert len(deltas) < 20, f"{len(deltas)} deltas for {len(events)} events sent together"

