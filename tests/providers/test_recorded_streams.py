"""Recorded streams from real servers give the turn a user expects, however the bytes arrive."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neocode_tui.collector import CollectedTurn, collect
from neocode_tui.events import StreamEvent, joined
from neocode_tui.providers.dialect import CallIds, EventPump
from neocode_tui.providers.scripted import detect_dialect, make_dialect

STREAMS = sorted((Path(__file__).parent.parent / "streams").glob("*.sse"))


def play(data: bytes, reads: Iterable[bytes]) -> tuple[list[dict], CollectedTurn]:
    """Decode ``reads`` as one live body would be, then collect the events."""
    pump = EventPump(make_dialect(detect_dialect(data), CallIds()))
    events: list[StreamEvent] = []
    for read in reads:
        events += pump.feed(read)
    events += pump.close()

    async def source():
        for event in events:
            yield event

    return [event.model_dump() for event in events], asyncio.run(collect(source()))


def split(data: bytes, cuts: Iterable[int]) -> list[bytes]:
    bounds = [0, *sorted(set(cuts)), len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:])]


def test_there_is_a_realistic_set_of_recordings() -> None:
    assert len(STREAMS) >= 10
    assert {detect_dialect(path.read_bytes()) for path in STREAMS} == {"openai", "anthropic"}


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.stem)
def test_each_recording_collects_into_its_expected_turn(path: Path) -> None:
    data = path.read_bytes()
    _, turn = play(data, [data])
    assert turn.to_replay_json() == json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.stem)
def test_byte_by_byte_reads_give_the_same_events(path: Path) -> None:
    data = path.read_bytes()
    assert play(data, [data[i : i + 1] for i in range(len(data))]) == play(data, [data])


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.stem)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_any_split_of_the_bytes_gives_identical_events_and_turn(path: Path, data: st.DataObject) -> None:
    body = path.read_bytes()
    # Cuts anywhere, and often where decoders go wrong: around line ends and inside characters.
    tricky = [i for i in range(1, len(body)) if body[i - 1] in b"\r\n" or body[i] in b"\r\n" or body[i] >= 0x80]
    cut = st.one_of(st.integers(1, len(body) - 1), st.sampled_from(tricky))
    cuts = data.draw(st.lists(cut, max_size=60), label="cuts")
    assert play(body, split(body, cuts)) == play(body, [body])


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.stem)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_the_live_pump_gathers_each_read_as_the_joined_events(path: Path, data: st.DataObject) -> None:
    """The live provider's pump builds one delta per run of text pieces in a read, not one per
    piece: the live stream (what arrived together, joined) is exactly the same."""
    body = path.read_bytes()
    reads = split(body, data.draw(st.lists(st.integers(1, len(body) - 1), max_size=30), label="cuts"))
    name = detect_dialect(body)
    each, gathering = EventPump(make_dialect(name, CallIds())), EventPump(make_dialect(name, CallIds()), gather=True)
    for read in reads:
        assert joined(gathering.feed(read)) == joined(each.feed(read))
    assert joined(gathering.close()) == joined(each.close())
