"""The agent session: the one core every front end drives, against the loopback model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from neocode_tui.agent.loop_events import (
    ApprovalDecision,
    ApprovalRequested,
    RunFinished,
    SessionTitled,
    TranscriptReplaced,
)
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.agent.store.session_store import find_session, load_session
from neocode_tui.agent.transcript import INTERRUPTED
from neocode_tui.errors import SessionNotFound, WorkInProgress
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.model_server import Response
from tests.support.recorder import Recorder
from tests.support.transcripts import assert_transcript_valid
from tests.support.waits import PATIENCE, wait_until


def make_session(dialect: Dialect, workspace: Path, **options) -> tuple[AgentSession, Recorder]:
    recorder = Recorder()
    settings = Settings(provider=dialect.name, approval=options.pop("approval", "ask"))
    session = AgentSession(
        settings, workspace, FrontEnd(listener=recorder, approver=options.pop("approver", None)),
        provider=dialect.provider(), **options
    )
    return session, recorder


async def test_a_prompt_titles_and_saves_the_session(dialect: Dialect, workspace: Path) -> None:
    dialect.reply("Hello there.")
    session, recorder = make_session(dialect, workspace)

    finished = await session.prompt("say hello\nand more lines")

    assert finished.reason == "done" and finished.final_text == "Hello there."
    [titled] = recorder.of(SessionTitled)
    assert (titled.title, titled.session_id) == ("say hello", session.id)
    saved = load_session(find_session(workspace, session.id))
    assert saved.info.title == "say hello"
    assert [m.content for m in saved.messages] == ["say hello\nand more lines", "Hello there."]
    assert session.saved_sessions() == []  # the current one is not "another" session
    await session.aclose()


async def test_clear_then_resume_brings_the_conversation_back(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("Noted.")
    session, recorder = make_session(dialect, workspace)
    await session.prompt("remember the milk")
    first = session.id

    session.clear()
    assert session.messages == [] and session.id is None and session.title == ""
    assert recorder.of(TranscriptReplaced)[-1].reason == "cleared"
    [other] = session.saved_sessions()
    assert other.id == first

    info = session.resume(None)
    replaced = recorder.of(TranscriptReplaced)[-1]
    assert (info.id, session.id, replaced.reason, replaced.session_id) == (first, first, "resumed", first)
    assert [m.content for m in replaced.messages] == ["remember the milk", "Noted."]
    assert session.usage.input_tokens > 0
    with pytest.raises(SessionNotFound):
        session.resume("20990101-000000-abcdef")
    await session.aclose()


async def test_compaction_replaces_the_history_and_the_file_keeps_it_whole(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("First answer.")
    dialect.reply("The user asked for a first answer and got it.")
    session, recorder = make_session(dialect, workspace)
    await session.prompt("first question")
    old = session.id

    assert await session.compact()

    assert session.id == old  # one conversation, one file: the compaction is a record in it
    assert "The user asked for a first answer" in session.messages[0].content
    assert recorder.of(TranscriptReplaced)[-1].reason == "compacted"
    path = find_session(workspace, old).path
    contents = [json.loads(line).get("message", {}).get("content") for line in path.read_text().splitlines()]
    assert ["first question", "First answer."] == [c for c in contents if c]
    compacted = load_session(find_session(workspace, session.id))
    assert compacted.messages == session.messages
    assert compacted.info.title == "first question"
    await session.aclose()


async def test_cancel_ends_the_prompt_and_the_session_goes_on(
    dialect: Dialect, workspace: Path
) -> None:
    body = dialect.turn("Partial answer " + "word " * 200)
    dialect.server.enqueue(Response(body=body, chunk_sizes=30, delay=0.02))
    dialect.reply("Second answer.")
    session, recorder = make_session(dialect, workspace)

    task = asyncio.create_task(session.prompt("go"))
    await wait_until(lambda: len(recorder.events) > 5, what="the answer to start")
    with pytest.raises(WorkInProgress):
        await session.prompt("again")
    assert session.cancel()
    finished = await task

    assert finished.reason == "cancelled" and not task.cancelled()
    assert not session.running and not session.cancel()
    again = await session.prompt("again")
    assert again.final_text == "Second answer."
    assert_transcript_valid(session.loop)
    await session.aclose()


async def test_closing_while_an_approval_waits_records_it_interrupted_and_sends_nothing_more(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("", [("w1", "write_file", '{"path": "a.txt", "content": "a"}')])
    asked = asyncio.Event()

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        asked.set()
        await asyncio.Event().wait()  # the dialog is open when the program closes
        raise AssertionError("unreachable")

    session, recorder = make_session(dialect, workspace, approver=approver)
    task = asyncio.create_task(session.prompt("write a file"))
    await asked.wait()

    await asyncio.wait_for(session.aclose(), PATIENCE)

    assert task.done()
    [finished] = recorder.of(RunFinished)
    assert finished.reason == "cancelled"
    assert len(dialect.server.requests) == 1
    assert not (workspace / "a.txt").exists()
    saved = load_session(find_session(workspace, session.id))
    [result] = [m for m in saved.messages if m.role == "tool"]
    assert (result.tool_call_id, result.content) == ("w1", INTERRUPTED)


async def test_a_timeout_around_a_prompt_is_a_timeout_error(dialect: Dialect, workspace: Path) -> None:
    dialect.server.enqueue(Response(body=dialect.turn("slow"), stall=3600, stall_at=20))  # never ends
    session, recorder = make_session(dialect, workspace)

    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.5):
            await session.prompt("hello")

    assert not session.running
    assert recorder.of(RunFinished)[-1].reason == "cancelled"
    await session.aclose()


async def test_a_prompt_with_bytes_that_are_not_utf8_is_sent_replaced(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("ok")
    session, _ = make_session(openai_only, workspace)
    prompt = b"caf\xe9 au lait".decode("utf-8", "surrogateescape")

    finished = await session.prompt(prompt)

    assert finished.reason == "done"
    sent = openai_only.request(1)["messages"][-1]["content"]
    assert sent == "caf\ufffd au lait"
    await session.aclose()


async def test_plan_mode_runs_reads_only_and_leaving_it_lets_the_plan_be_carried_out(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [
        ("p1", "read_file", '{"path": "app.py"}'),
        ("p2", "write_file", '{"path": "app.py", "content": "changed"}'),
    ])
    openai_only.reply("Plan: 1. change greet.")
    openai_only.reply("", [("p3", "write_file", '{"path": "app.py", "content": "changed\\n"}')])
    openai_only.reply("Done.")
    session, _ = make_session(openai_only, workspace, approval="plan")

    planned = await session.prompt("plan a change to greet")

    assert planned.final_text == "Plan: 1. change greet."
    results = openai_only.tool_results(2)
    assert "def greet" in results["p1"]
    assert results["p2"].startswith("not run: plan mode is on")
    assert "greet" in (workspace / "app.py").read_text()
    assert "# Plan mode\n" in openai_only.system(1)

    session.approval = "full-auto"
    done = await session.prompt("go ahead")

    assert done.final_text == "Done."
    assert (workspace / "app.py").read_text() == "changed\n"
    assert "# Plan mode is over" in openai_only.system(3)
    assert "Plan mode" not in openai_only.system(4)
    await session.aclose()
