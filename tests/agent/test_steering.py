"""Words sent while the agent works join the running turn at its next model request: a real
session against the loopback model, whose replies are held until the words are in."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from neocode_tui.agent.loop_events import Steered
from neocode_tui.agent.session import AgentSession, FrontEnd
from neocode_tui.settings.model import Settings
from tests.support.calls import bash
from tests.support.dialects import API_KEY, Dialect
from tests.support.recorder import Recorder
from tests.support.waits import PATIENCE, wait_until


def session_for(dialect: Dialect, workspace: Path) -> tuple[AgentSession, Recorder]:
    recorder = Recorder()
    settings = Settings(provider=dialect.name, approval="full-auto", sandbox="off", openai_api_key=API_KEY)
    return AgentSession(settings, workspace, FrontEnd(listener=recorder), provider=dialect.provider()), recorder


def last_user_words(dialect: Dialect, number: int) -> str:
    messages = dialect.request(number)["messages"]
    return json.dumps([m for m in messages if m["role"] == "user"][-1])


async def test_words_sent_during_a_tool_call_reach_the_next_request_after_its_result(
    dialect: Dialect, workspace: Path
) -> None:
    held = asyncio.Event()
    dialect.reply("", [bash("b1", "echo hi")], wait=held)
    dialect.reply("Done, with tabs.")
    session, recorder = session_for(dialect, workspace)
    work = asyncio.create_task(session.prompt("reformat app.py"))
    await wait_until(lambda: len(dialect.server.requests) == 1, what="the first request")

    assert session.steer(f"use tabs, not spaces {API_KEY}") == "use tabs, not spaces [redacted]"
    held.set()
    finished = await asyncio.wait_for(work, PATIENCE)

    assert finished.final_text == "Done, with tabs." and len(dialect.server.requests) == 2
    assert "use tabs, not spaces [redacted]" in last_user_words(dialect, 2)
    assert "b1" in dialect.tool_results(2)  # the result first, then the words
    assert [e.text for e in recorder.of(Steered)] == ["use tabs, not spaces [redacted]"]
    assert API_KEY not in json.dumps(dialect.request(2))
    session_id = session.id
    await session.aclose()

    again, _ = session_for(dialect, workspace)
    again.resume(session_id)
    assert [m.content for m in again.messages if m.role == "user"] == [
        "reformat app.py", "use tabs, not spaces [redacted]"]
    await again.aclose()


async def test_words_sent_while_it_answers_keep_the_turn_going(openai_only: Dialect, workspace: Path) -> None:
    held = asyncio.Event()
    openai_only.reply("Here is the plan.", wait=held)
    openai_only.reply("Also covering the README.")
    session, _ = session_for(openai_only, workspace)
    work = asyncio.create_task(session.prompt("plan it"))
    await wait_until(lambda: len(openai_only.server.requests) == 1, what="the first request")

    session.steer("and the README")
    held.set()
    finished = await asyncio.wait_for(work, PATIENCE)

    assert finished.reason == "done" and finished.final_text == "Also covering the README."
    assert "and the README" in last_user_words(openai_only, 2)
    assert session.steers.waiting == []
    assert session.steer("too late") is None  # nothing runs: a prompt of its own
    await session.aclose()


async def test_words_no_request_read_stay_for_the_front_end_after_an_interrupt(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("Working…", stall=60, stall_at=0)
    session, _ = session_for(openai_only, workspace)
    work = asyncio.create_task(session.prompt("go"))
    await wait_until(lambda: len(openai_only.server.requests) == 1, what="the request")

    session.steer("stop after this")
    session.steer("and say why")
    assert session.steers.take_back("stop after this")
    session.cancel()
    finished = await asyncio.wait_for(work, PATIENCE)

    assert finished.reason == "cancelled" and session.steers.waiting == ["and say why"]
    await session.aclose()
