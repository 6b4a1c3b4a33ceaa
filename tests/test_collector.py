"""The collector turns one channel of events into the turn the loop acts on."""

from __future__ import annotations

import asyncio

import pytest

from neocode_tui.collector import Collector, collect
from neocode_tui.events import (
    MessageDone,
    ReasoningDelta,
    StreamError,
    StreamEvent,
    StreamRetry,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    UsageEvent,
)
from tests.support.waits import PATIENCE


async def source(*events: StreamEvent):
    for event in events:
        yield event


def done(reason="stop", **usage) -> MessageDone:
    return MessageDone(finish_reason=reason, usage=Usage(**usage) if usage else None)


async def test_every_event_reaches_the_callback_and_the_text_is_joined_once() -> None:
    events = [ReasoningDelta(text="hm"), TextDelta(text="Hel"), TextDelta(text="lo"), done()]
    seen: list[StreamEvent] = []
    turn = await collect(source(*events), seen.append)
    assert seen == events
    assert (turn.text, turn.reasoning, turn.finish_reason, turn.ok) == ("Hello", "hm", "stop", True)


async def test_a_delta_before_its_start_joins_the_call() -> None:
    turn = await collect(source(
        ToolCallDelta(index=0, arguments='{"path":'),
        ToolCallStart(index=0, id="c1", name="read_file"),
        ToolCallDelta(index=0, arguments=' "a"}'),
        ToolCallEnd(index=0), done("tool_calls")))
    assert [(c.id, c.name, c.arguments_json) for c in turn.tool_calls] == [("c1", "read_file", {"path": "a"})]


async def test_the_first_non_empty_id_and_name_win() -> None:
    turn = await collect(source(
        ToolCallStart(index=0, id="", name=""),
        ToolCallStart(index=0, id="c1", name="bash"),
        ToolCallStart(index=0, id="c9", name="write_file"),
        ToolCallDelta(index=0, arguments="{}"), done("tool_calls")))
    assert [(c.id, c.name) for c in turn.tool_calls] == [("c1", "bash")]


async def test_calls_come_back_in_start_order_and_nameless_ones_are_dropped_and_counted() -> None:
    turn = await collect(source(
        ToolCallStart(index=2, id="c2", name="grep"),
        ToolCallStart(index=0, id="c0", name="glob"),
        ToolCallDelta(index=1, arguments='{"x": 1}'),  # never named
        done("tool_calls")))
    assert [c.name for c in turn.tool_calls] == ["grep", "glob"]
    assert turn.dropped_tool_calls == 1


async def test_arguments_that_are_not_json_are_kept_raw_with_the_reason() -> None:
    turn = await collect(source(ToolCallStart(index=0, id="c", name="bash"),
                                ToolCallDelta(index=0, arguments='{"command": "ls'), done("tool_calls")))
    call = turn.tool_calls[0]
    assert (call.arguments, call.arguments_json) == ('{"command": "ls', None)
    assert "not valid JSON" in call.parse_error


async def test_usage_merges_field_by_field_latest_non_zero_never_summed() -> None:
    turn = await collect(source(
        UsageEvent(usage=Usage(input_tokens=100, cached_input_tokens=60, output_tokens=1)),
        UsageEvent(usage=Usage(output_tokens=20)),
        done(output_tokens=25)))
    assert (turn.usage.input_tokens, turn.usage.cached_input_tokens, turn.usage.output_tokens) == (100, 60, 25)


async def test_a_retry_discards_everything_the_broken_attempt_brought() -> None:
    turn = await collect(source(
        TextDelta(text="first try"), ToolCallStart(index=0, id="c1", name="write_file"),
        UsageEvent(usage=Usage(input_tokens=5)),
        StreamRetry(attempt=2, max_attempts=3, delay=0.1, reason="connection lost"),
        TextDelta(text="second"), done()))
    assert (turn.text, turn.tool_calls, turn.usage, turn.retries) == ("second", [], None, 1)


async def test_an_error_ends_the_turn_and_its_calls_are_marked_incomplete() -> None:
    turn = await collect(source(
        ToolCallStart(index=0, id="c", name="bash"), ToolCallDelta(index=0, arguments="{}"),
        StreamError(kind="server", message="boom"), TextDelta(text="never read")))
    assert (turn.error.kind, turn.finish_reason, turn.ok, turn.text) == ("server", None, False, "")
    assert [c.complete for c in turn.tool_calls] == [False]


async def test_a_channel_that_closes_without_a_finish_is_truncated() -> None:
    turn = await collect(source(TextDelta(text="half")))
    assert (turn.text, turn.error.kind, turn.ok) == ("half", "truncated", False)


async def test_a_cancel_propagates_closes_the_source_and_keeps_the_partial_turn() -> None:
    closed = asyncio.Event()

    async def slow_source():
        try:
            yield TextDelta(text="so far")
            await asyncio.Event().wait()  # the model goes quiet
            yield TextDelta(text="never")
        finally:
            closed.set()

    arrived = asyncio.Event()
    collector = Collector(lambda event: arrived.set())
    task = asyncio.create_task(collector.collect(slow_source()))
    await arrived.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, PATIENCE)
    assert task.cancelled()
    turn = collector.partial()
    assert (turn.text, turn.cancelled, turn.error.kind, turn.ok) == ("so far", True, "cancelled", False)
    assert closed.is_set()


async def test_a_timeout_around_a_collect_is_a_timeout_error() -> None:
    async def silent_source():
        yield TextDelta(text="so far")
        await asyncio.Event().wait()

    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.05):
            await collect(silent_source())
