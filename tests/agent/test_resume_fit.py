"""A resumed session too long for the model's window: the meter shows what the next request
will send, the history is compacted before it, and when it cannot be, the request sends the
newest messages that fit and the user is told how many were left out; the session file and
the transcript keep everything."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.agent.commands.reports import context_report
from neocode_tui.agent.context.figure import CHARS_PER_TOKEN
from neocode_tui.agent.context.summary import SUMMARY_PREFIX
from neocode_tui.agent.loop_events import Notice
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.agent.store.session_store import find_session, load_session
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.long_session import WINDOW, long_session
from tests.support.model_server import json_response
from tests.support.recorder import Recorder


def resumed(dialect: Dialect, workspace: Path) -> tuple[AgentSession, Recorder]:
    recorder = Recorder()
    session = AgentSession(Settings(provider=dialect.name, context_window=WINDOW), workspace,
                           FrontEnd(listener=recorder), provider=dialect.provider())
    session.resume()
    return session, recorder


def sent_messages(dialect: Dialect, number: int) -> list[dict]:
    """The conversation a request sent, without its system prompt."""
    return [m for m in dialect.request(number)["messages"] if m["role"] != "system"]


async def test_the_meter_of_a_resumed_session_too_long_shows_what_will_be_sent(
    openai_only: Dialect, workspace: Path
) -> None:
    total = long_session(workspace)
    session, _ = resumed(openai_only, workspace)

    figure = session.meter.context
    assert figure.window == WINDOW and figure.fraction is not None
    assert 0.5 < figure.fraction <= 0.85  # the newest messages that fit, not 1,600 %
    assert len(session.messages) == total  # all of it on screen and in the transcript
    assert session.meter.sent_from % 4 == 0  # from a prompt: no call parted from its result
    report = context_report(session)
    assert f"{figure.tokens:,} of {WINDOW:,} tokens" in report
    assert " ".join(report.split()).count(
        f"left out (too long) {session.meter.sent_from:,} of {total:,} messages") == 1
    await session.aclose()


async def test_a_resumed_session_too_long_is_compacted_before_its_next_request(
    openai_only: Dialect, workspace: Path
) -> None:
    long_session(workspace)
    openai_only.reply("They asked why each step reads twice.")  # the summary
    openai_only.reply("Done.")
    session, recorder = resumed(openai_only, workspace)

    finished = await session.prompt("now fix them all")

    assert finished.final_text == "Done."
    assert "tools" not in openai_only.request(1)  # the summary request came first
    summary_input = sent_messages(openai_only, 1)[-1]["content"]
    assert "question 0:" in summary_input and "messages left out" in summary_input
    sent = json.dumps(sent_messages(openai_only, 2))
    assert SUMMARY_PREFIX.split(" (")[0] in sent and "now fix them all" in sent
    assert len(sent) < WINDOW * CHARS_PER_TOKEN
    marker = [n.message for n in recorder.of(Notice) if "compacted" in n.message]
    assert "the history is more than fits the window" in marker[0]
    assert session.meter.context.tokens < WINDOW * 0.85
    await session.aclose()


async def test_when_it_cannot_be_compacted_the_newest_messages_that_fit_are_sent_and_it_says_so(
    openai_only: Dialect, workspace: Path
) -> None:
    total = long_session(workspace)
    openai_only.server.enqueue(json_response(500, {"error": {"message": "summariser down"}}))
    openai_only.reply("Done.")
    session, recorder = resumed(openai_only, workspace)

    finished = await session.prompt("now fix them all")

    assert finished.final_text == "Done."
    assert len(openai_only.server.requests) == 2  # the summary that failed, then the prompt
    sent = sent_messages(openai_only, 2)
    assert len(json.dumps(sent)) < WINDOW * CHARS_PER_TOKEN  # it fits the window
    assert sent[0]["role"] == "user" and sent[0]["content"].startswith("question ")
    assert sent[-1]["content"].endswith("now fix them all")
    calls = [c["id"] for m in sent if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    assert calls and calls == [m["tool_call_id"] for m in sent if m["role"] == "tool"]
    assert "question 499:" in json.dumps(sent) and "question 0:" not in json.dumps(sent)
    left_out = session.meter.sent_from
    kept = total - left_out
    words = [n.message for n in recorder.of(Notice) if "left out" in n.message]
    assert len(words) == 1
    assert words[0].startswith(f"not compacted, so this request sends only the newest {kept:,} messages (~")
    assert (f"which fit the model's window): the oldest {left_out:,} of {total:,} are left out. "
            "The session file and the screen keep them all") in words[0]
    assert len(session.messages) == total + 2  # the transcript keeps everything
    await session.aclose()
    assert len(load_session(find_session(workspace, session.id)).messages) == total + 2


async def test_a_compaction_that_failed_is_not_tried_again_before_each_prompt_but_by_compact(
    openai_only: Dialect, workspace: Path
) -> None:
    long_session(workspace)
    openai_only.server.enqueue(json_response(500, {"error": {"message": "summariser down"}}))
    openai_only.reply("Done.")
    openai_only.reply("Done again.")
    session, recorder = resumed(openai_only, workspace)
    await session.prompt("now fix them all")

    finished = await session.prompt("and the tests")

    assert finished.final_text == "Done again."
    assert len(openai_only.server.requests) == 3  # no second summary request before it
    assert sent_messages(openai_only, 3)[-1]["content"].endswith("and the tests")
    trimmed = [n.message for n in recorder.of(Notice) if "left out" in n.message]
    assert len(trimmed) == 2 and "/compact tries again" in trimmed[-1]
    openai_only.reply("They asked why each step reads twice.")
    assert await session.compact()  # asked for, it is tried
    assert len(openai_only.server.requests) == 4
    assert session.messages[0].content.startswith(SUMMARY_PREFIX)
    await session.aclose()
