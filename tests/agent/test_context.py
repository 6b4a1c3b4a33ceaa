"""The context meter, the cost and compaction, through the session against the loopback
model: what the front ends show and what a resumed session continues from."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from neocode_tui.agent.context.summary import SUMMARY_PREFIX
from neocode_tui.agent.loop_events import Notice, TranscriptReplaced
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.agent.store.session_store import find_session, load_session
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.model_server import Response
from tests.support.recorder import Recorder
from tests.support.transcripts import assert_transcript_valid

PRICED = {"openai": "gpt-4o", "anthropic": "claude-sonnet-4-5"}
"""$2.50 / $10 and $3 / $15 per million input / output tokens in genai-prices."""


def make_session(dialect: Dialect, workspace: Path, **settings) -> tuple[AgentSession, Recorder]:
    recorder = Recorder()
    session = AgentSession(
        Settings(provider=dialect.name, **settings), workspace, FrontEnd(listener=recorder),
        provider=dialect.provider(),
    )
    return session, recorder


def answer(
    dialect: Dialect, text: str, usage: tuple[int, int] | None = (10, 5),
    calls: tuple[tuple[str, str, str], ...] = (),
) -> None:
    """A reply with this usage; ``calls`` are ``(id, name, arguments_json)``."""
    dialect.server.enqueue(Response(body=dialect.turn(text, calls, usage=usage)))


def overflow_error(dialect: Dialect) -> Response:
    """The 400 each vendor sends for a prompt longer than the window, in its own words."""
    if dialect.name == "openai":
        error = {"error": {"message": "This model's maximum context length is 8192 tokens. However, "
                           "your messages resulted in 9120 tokens.", "code": "context_length_exceeded"}}
    else:
        error = {"type": "error", "error": {"type": "invalid_request_error",
                                            "message": "prompt is too long: 210311 tokens > 200000 maximum"}}
    return Response(status=400, headers={"content-type": "application/json"},
                    body=json.dumps(error).encode())


async def test_the_meter_shows_the_tokens_the_server_reported(dialect: Dialect, workspace: Path) -> None:
    answer(dialect, "Hello.", usage=(1200, 300))
    session, _ = make_session(dialect, workspace, context_window=10_000)

    await session.prompt("hi")

    figure = session.meter.context
    assert (figure.tokens, figure.window, figure.estimated) == (1500, 10_000, False)
    assert figure.as_json() == {"tokens": 1500, "window": 10_000, "estimated": False, "percent": 15.0}
    await session.aclose()


async def test_without_usage_the_meter_estimates_from_the_text(openai_only: Dialect, workspace: Path) -> None:
    answer(openai_only, "word " * 400, usage=None)
    session, _ = make_session(openai_only, workspace)

    await session.prompt("hi")

    figure = session.meter.context
    parts = {part.name: part.tokens for part in session.meter.context_parts()}
    assert figure.estimated and figure.window is None  # gpt-test: no known window
    assert figure.tokens == sum(parts.values())
    assert parts["conversation"] >= 500  # 2,000 characters of answer, about 4 a token
    assert parts["tool definitions"] > 100 and parts["system prompt"] > 50
    assert session.meter.cost is None
    await session.aclose()


async def test_the_breakdown_names_the_agents_file(openai_only: Dialect, workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("Always run the tests. " * 100)
    session, _ = make_session(openai_only, workspace)

    parts = {part.name: part.tokens for part in session.meter.context_parts()}

    assert parts["AGENTS.md (project)"] >= 550
    assert parts["conversation"] == 0
    await session.aclose()


async def test_a_priced_model_costs_dollars_per_model(dialect: Dialect, workspace: Path) -> None:
    answer(dialect, "One.", usage=(1000, 100))
    answer(dialect, "Two.", usage=(1000, 100))
    session, _ = make_session(dialect, workspace)
    session.model = PRICED[dialect.name]

    await session.prompt("first")
    await session.prompt("second")

    expected = {"openai": Decimal("0.007"), "anthropic": Decimal("0.009")}[dialect.name]
    assert session.meter.cost == expected
    [entry] = session.meter.costs
    assert (entry.model, entry.requests, entry.usage.input_tokens, entry.cost) == (
        PRICED[dialect.name], 2, 2000, expected,
    )
    await session.aclose()


async def test_an_unknown_model_has_tokens_but_no_price(dialect: Dialect, workspace: Path) -> None:
    answer(dialect, "One.", usage=(1000, 100))
    session, _ = make_session(dialect, workspace)

    await session.prompt("first")

    assert session.meter.cost is None
    [entry] = session.meter.costs
    assert (entry.model, entry.usage.output_tokens, entry.cost) == (session.model, 100, None)
    await session.aclose()


async def test_past_the_threshold_the_history_is_compacted_before_the_next_prompt(
    dialect: Dialect, workspace: Path
) -> None:
    answer(dialect, "Answer one.", usage=(1_500, 20))
    answer(dialect, "Answer two.", usage=(8_500, 20))
    answer(dialect, "They asked two questions.")  # the summary
    answer(dialect, "Answer three.")
    session, recorder = make_session(dialect, workspace, context_window=10_000, compact_threshold=0.8)

    await session.prompt("question one")
    await session.prompt("question two")
    finished = await session.prompt("question three")

    assert finished.final_text == "Answer three."
    summary_request = json.dumps(dialect.request(3))
    assert "question one" in summary_request and "tools" not in dialect.request(3)
    assert [m.content for m in session.messages] == [
        SUMMARY_PREFIX + "They asked two questions.",
        "Understood. I will continue from this summary.",
        "question two", "Answer two.", "question three", "Answer three.",
    ]
    assert recorder.of(TranscriptReplaced)[-1].reason == "compacted"
    marker = [n for n in recorder.of(Notice) if "compacted" in n.message]
    assert "passed 80%" in marker[0].message and "2 earlier messages" in marker[0].message
    assert session.title == "question one"
    assert_transcript_valid(session.loop)

    resumed = load_session(find_session(workspace, session.id))
    assert resumed.messages == session.messages
    assert resumed.info.title == "question one"
    await session.aclose()


async def test_past_the_threshold_in_the_middle_of_a_run_the_history_is_compacted_and_the_run_goes_on(
    dialect: Dialect, workspace: Path
) -> None:
    answer(dialect, "Answer one.", usage=(1_500, 20))
    answer(dialect, "Answer two.", usage=(3_000, 20))
    answer(dialect, "Reading.", (8_500, 20), calls=(("r1", "read_file", '{"path": "app.py"}'),))
    answer(dialect, "They asked one question.")  # the summary, between the run's two turns
    answer(dialect, "", (8_750, 20), calls=(("r2", "read_file", '{"path": "app.py"}'),))
    answer(dialect, "app.py greets.")
    session, recorder = make_session(dialect, workspace, context_window=10_000, compact_threshold=0.8)

    await session.prompt("question one")
    await session.prompt("question two")
    finished = await session.prompt("what does app.py do?")

    assert (finished.reason, finished.final_text) == ("done", "app.py greets.")
    assert len(dialect.server.requests) == 6  # compacted once in the run, though still over after
    assert "question one" in json.dumps(dialect.request(4)) and "tools" not in dialect.request(4)
    after = json.dumps(dialect.request(5))
    assert SUMMARY_PREFIX[:20] in after and "question one" not in after
    assert "question two" in after and "r1" in json.dumps(dialect.tool_results(5))
    marker = [n.message for n in recorder.of(Notice) if "compacted" in n.message]
    assert len(marker) == 1 and "passed 80% of the window during the run" in marker[0]
    assert_transcript_valid(session.loop)
    assert load_session(find_session(workspace, session.id)).messages == session.messages
    await session.aclose()


async def test_an_overflowing_prompt_is_compacted_and_sent_again(dialect: Dialect, workspace: Path) -> None:
    answer(dialect, "Answer one.")
    dialect.server.enqueue(overflow_error(dialect))
    answer(dialect, "The user asked one question.")  # the summary
    answer(dialect, "Answer two.")
    session, recorder = make_session(dialect, workspace)

    await session.prompt("question one")
    finished = await session.prompt("question two")

    assert (finished.reason, finished.final_text) == ("done", "Answer two.")
    assert [m.content for m in session.messages][2:] == ["question two", "Answer two."]
    assert "overflowed" in [n for n in recorder.of(Notice) if "compacted" in n.message][0].message
    assert_transcript_valid(session.loop)
    assert load_session(find_session(workspace, session.id)).messages == session.messages
    await session.aclose()


async def test_an_overflow_in_the_middle_of_a_run_goes_on_after_compaction(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [("r1", "read_file", '{"path": "app.py"}')])
    openai_only.server.enqueue(overflow_error(openai_only))
    answer(openai_only, "They asked to read app.py; it was read.")
    answer(openai_only, "app.py greets.")
    session, _ = make_session(openai_only, workspace)

    finished = await session.prompt("what does app.py do?")

    assert finished.final_text == "app.py greets."
    last_request = openai_only.request(4)["messages"]
    assert "continue the task" in last_request[-1]["content"].lower()
    assert_transcript_valid(session.loop)
    await session.aclose()


async def test_compact_on_request_keeps_what_the_user_asks(openai_only: Dialect, workspace: Path) -> None:
    answer(openai_only, "One.")
    answer(openai_only, "Summary.")
    session, _ = make_session(openai_only, workspace)
    await session.prompt("first")

    assert await session.compact("the database schema")

    assert "Above all, keep: the database schema" in openai_only.request(2)["messages"][-1]["content"]
    await session.aclose()


async def test_no_compaction_when_the_instructions_alone_pass_the_threshold(
    openai_only: Dialect, workspace: Path
) -> None:
    answer(openai_only, "One.", usage=(950, 20))
    answer(openai_only, "Two.")
    session, recorder = make_session(openai_only, workspace, context_window=1_000)

    await session.prompt("first")
    await session.prompt("second")

    assert len(openai_only.server.requests) == 2  # two answers, no summary request
    assert not recorder.of(TranscriptReplaced)
    await session.aclose()
