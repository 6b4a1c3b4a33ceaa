"""One view of each tool call, from real event sequences: the loop against a loopback model
(its real provider and parser), recorded streams through the real dialect parser, and the
transcript a run leaves behind, all fed to the ``CallTracker`` the app and ACP map."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.agent.call_updates import (
    Call,
    CallArgumentsDelta,
    CallBegin,
    CallDiscarded,
    CallEnd,
    CallIdentified,
    CallReady,
    CallRunning,
    CallTracker,
    CallUpdate,
    replayed,
)
from neocode_tui.agent.loop import AgentLoop
from neocode_tui.agent.loop_events import LoopEvent, Streamed
from neocode_tui.events import MessageDone, TextDelta, ToolCallDelta, ToolCallEnd, ToolCallStart
from neocode_tui.providers.dialect import CallIds, EventPump
from neocode_tui.providers.http import HTTPOptions
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from neocode_tui.providers.scripted import ScriptedProvider, detect_dialect, make_dialect
from tests.support.dialects import API_KEY, Dialect
from tests.support.model_server import Response
from tests.support.recorder import Recorder
from tests.support.sse import openai_sse, openai_turn

STREAMS = Path(__file__).parent.parent / "streams"


def tracked(events: list[LoopEvent]) -> list[CallUpdate]:
    tracker = CallTracker()
    return [update for event in events for update in tracker.feed(event)]


def recorded(name: str) -> list[LoopEvent]:
    """A recording through the real parser, as the loop forwards it in turn 1."""
    data = (STREAMS / name).read_bytes()
    pump = EventPump(make_dialect(detect_dialect(data), CallIds()))
    return [Streamed(turn=1, event=event) for event in pump.feed(data) + pump.close()]


def calls_of(updates: list[CallUpdate]) -> list[Call]:
    return [update.call for update in updates if isinstance(update, CallBegin)]


def story(updates: list[CallUpdate], call: Call) -> list[str]:
    """The kinds of update one call had, with repeats of a delta folded into one."""
    kinds: list[str] = []
    for update in updates:
        name = type(update).__name__
        if update.call is call and not (kinds and kinds[-1] == name == "CallArgumentsDelta"):
            kinds.append(name)
    return kinds


def interleaved_turn() -> bytes:
    """Two parallel calls whose argument fragments alternate, as gpt-4o sends them."""
    base = {"id": "chatcmpl-x", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test"}

    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    arguments = ['{"path": "a.txt"}', '{"path": "b.txt"}']
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"tool_calls": [{"index": n, "id": f"call_{n}", "type": "function",
                                      "function": {"name": "read_file", "arguments": ""}}]})
               for n in range(2)]
    for start in range(0, len(arguments[0]), 3):
        chunks += [chunk({"tool_calls": [{"index": n, "function": {"arguments": text[start:start + 3]}}]})
                   for n, text in enumerate(arguments)]
    chunks.append(chunk({}, "tool_calls"))
    return openai_sse(chunks)


async def test_two_interleaved_calls_grow_apart_and_each_ends_with_its_own_result(
    openai_only: Dialect, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")
    openai_only.server.enqueue(Response(body=interleaved_turn(), chunk_sizes=[7, 13, 3]))
    openai_only.reply("Both read.")
    recorder = Recorder()
    await AgentLoop(openai_only.provider(), workspace, sink=recorder, approval="full-auto").run("read both")

    updates = tracked(recorder.events)
    first, second = calls_of(updates)
    assert [(c.index, c.call_id, c.name) for c in (first, second)] == [
        (0, "call_0", "read_file"), (1, "call_1", "read_file")]
    deltas = [u.call.index for u in updates if isinstance(u, CallArgumentsDelta)]
    assert deltas[:4] == [0, 1, 0, 1]  # as they came, each on its own call
    for call, path, text in ((first, "a.txt", "alpha"), (second, "b.txt", "beta")):
        assert call.arguments.values() == {"path": path}
        assert story(updates, call) == ["CallBegin", "CallArgumentsDelta", "CallReady",
                                        "CallRunning", "CallEnd"]
        [end] = [u for u in updates if isinstance(u, CallEnd) and u.call is call]
        assert end.status == "ok" and text in (end.result or "")


def test_arguments_grow_and_a_path_is_settled_only_once_it_is_whole() -> None:
    updates = tracked(recorded("llamacpp_tool_fragments.sse"))
    [call] = calls_of(updates)
    assert (call.call_id, call.name) == ("vLk1sY0qLm2N9pB3cD8eF4gH", "write_file")
    seen: list[str] = []
    settled_paths: set[str] = set()
    tracker = CallTracker()
    for event in recorded("llamacpp_tool_fragments.sse"):
        for update in tracker.feed(event):
            if isinstance(update, CallArgumentsDelta):
                seen.append(update.call.arguments.raw.text)
                settled_paths.add(update.call.arguments.settled().get("path", ""))
    assert all(later.startswith(earlier) for earlier, later in zip(seen, seen[1:]))
    assert settled_paths == {"", "hello.py"}  # never "hel" on the way to it
    assert call.arguments.values() == {"path": "hello.py", "content": 'print("hi ✓")\n'}
    assert isinstance(updates[-1], CallReady) and call.status == "ready"


def test_a_message_that_ends_mid_call_leaves_it_incomplete() -> None:
    updates = tracked(recorded("openai_truncated_mid_call.sse"))
    [call] = calls_of(updates)
    assert updates[-1] == CallEnd(call, "incomplete")
    assert call.finished and call.arguments.settled() == {}  # "a" of a path names no file


async def test_a_retry_mid_call_discards_it_and_the_next_attempt_is_a_new_call(
    model_server, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    broken = openai_turn("Reading", [("read_file", '{"path": "a.txt"}')], call_ids=["c1"])
    model_server.enqueue(Response(body=broken, chunk_sizes=40, cut_after=len(broken) - 60),
                         Response(body=openai_turn("", [("read_file", '{"path": "a.txt"}')],
                                                   call_ids=["c1"])),
                         Response(body=openai_turn("It says alpha.")))
    provider = HTTPProvider(OpenAIChat(), model="gpt-test", base_url=model_server.url + "/v1", api_key=API_KEY,
                            options=HTTPOptions(max_retries=1, backoff_base=0.01, backoff_max=0.02))
    recorder = Recorder()
    finished = await AgentLoop(provider, workspace, sink=recorder, approval="full-auto").run("read a")
    await provider.aclose()

    assert finished.final_text == "It says alpha."
    updates = tracked(recorder.events)
    lost, kept = calls_of(updates)[:2]
    assert (lost.call_id, kept.call_id) == ("c1", "c1") and lost is not kept
    assert story(updates, lost)[0] == "CallBegin" and story(updates, lost)[-1] == "CallDiscarded"
    assert not any(isinstance(u, CallRunning) and u.call is lost for u in updates)
    assert story(updates, kept)[-2:] == ["CallRunning", "CallEnd"]
    assert [u.call for u in updates if isinstance(u, CallDiscarded)] == [lost]


async def test_a_call_without_an_id_until_late_is_one_call_from_its_first_fragment_to_its_result(
    workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    early = [ToolCallDelta(index=0, arguments='{"pa'), ToolCallDelta(index=0, arguments='th": "a.t')]
    late = [ToolCallStart(index=0, id="late_1", name="read_file"),
            ToolCallDelta(index=0, arguments='xt"}'), ToolCallEnd(index=0),
            MessageDone(finish_reason="tool_calls")]
    provider = ScriptedProvider([early + late, [TextDelta(text="alpha."), MessageDone(finish_reason="stop")]])
    recorder = Recorder()
    await AgentLoop(provider, workspace, sink=recorder, approval="full-auto").run("read a")

    updates = tracked(recorder.events)
    [call] = calls_of(updates)
    assert story(updates, call) == ["CallBegin", "CallArgumentsDelta", "CallIdentified",
                                    "CallArgumentsDelta", "CallReady", "CallRunning", "CallEnd"]
    begun = next(u for u in updates if isinstance(u, CallIdentified))
    assert begun.call is call and (call.call_id, call.name) == ("late_1", "read_file")
    assert call.arguments.values() == {"path": "a.txt"} and call.status == "ok"


async def test_replay_of_a_stored_session_tells_each_call_begun_whole_and_ended_as_saved(
    openai_only: Dialect, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    openai_only.reply("Looking.", [("c1", "read_file", '{"path": "a.txt"}'),
                                   ("c2", "read_file", '{"path": "missing.txt"}')])
    openai_only.reply("Done.")
    loop = AgentLoop(openai_only.provider(), workspace, approval="full-auto")
    await loop.run("read")

    told = list(replayed(loop.messages))
    assert [m.role for m in told if not isinstance(m, CallBegin | CallEnd)] == ["user", "assistant", "assistant"]
    ends = [item for item in told if isinstance(item, CallEnd)]
    assert [(e.call.index, e.call.call_id, e.status) for e in ends] == [(0, "c1", "ok"), (1, "c2", "error")]
    assert ends[0].call.arguments.values() == {"path": "a.txt"} and "alpha" in (ends[0].result or "")
    begun = [item.call for item in told if isinstance(item, CallBegin)]
    assert begun == [e.call for e in ends]

    unanswered = [m for m in loop.messages if m.role != "tool"]  # saved before its results
    [first, second] = [item for item in replayed(unanswered) if isinstance(item, CallEnd)]
    assert (first.status, first.result, second.status) == ("interrupted", None, "interrupted")
    assert json.loads(first.call.arguments.raw.text) == {"path": "a.txt"}
