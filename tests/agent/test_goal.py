"""``/goal`` in the core and headless: a real session (or a real ``neocode -p --goal``)
against the loopback model, which is both the agent and, asked after each turn, the judge."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from neocode_tui.agent.commands import run_command
from neocode_tui.agent.loop_events import GoalChanged
from neocode_tui.agent.session import AgentSession, FrontEnd
from neocode_tui.settings.model import Settings
from tests.support.calls import bash
from tests.support.dialects import API_KEY, Dialect
from tests.support.headless import neocode, run
from tests.support.recorder import Recorder, notices
from tests.support.waits import PATIENCE, wait_until

NOT_YET = json.dumps({"met": False, "reason": "the tests were not run"})
MET = json.dumps({"met": True, "reason": "pytest printed 3 passed"})


def session_for(dialect: Dialect, workspace: Path, **settings: object) -> tuple[AgentSession, Recorder]:
    recorder = Recorder()
    settings = Settings(provider=dialect.name, approval="full-auto", sandbox="off", openai_api_key=API_KEY,
                        **settings)
    return AgentSession(settings, workspace, FrontEnd(listener=recorder), provider=dialect.provider()), recorder


def sent_text(dialect: Dialect, number: int) -> str:
    return json.dumps(dialect.request(number))


async def test_the_agent_keeps_working_until_the_judge_finds_the_condition_holds(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("I fixed the import.")
    dialect.reply(NOT_YET)  # the judge, after turn 1
    dialect.reply("", [bash("b1", "echo '3 passed'")])
    dialect.reply("All tests pass.")
    dialect.reply(MET)  # the judge, after turn 2
    session, recorder = session_for(dialect, workspace)

    said = await run_command(session, "goal", "the tests pass")

    assert said.text == ""  # the notices say how it went
    assert len(dialect.server.requests) == 5
    first_judge, second_judge = sent_text(dialect, 2), sent_text(dialect, 5)
    assert "the tests pass" in first_judge and "Commands run:\\n(none)" in first_judge
    assert "I fixed the import." in first_judge
    assert "$ echo '3 passed'" in second_judge and "3 passed" in second_judge
    continued = dialect.request(3)["messages"][-1]
    assert "[NeoCode: the goal is not met yet] the tests were not run" in json.dumps(continued)
    assert "Keep working until this holds: the tests pass" in json.dumps(continued)
    assert [(e.state, e.turns) for e in recorder.of(GoalChanged)] == [("active", 0), ("active", 1), ("met", 2)]
    heard = notices(recorder)
    assert "goal not met yet after 1 turn: the tests were not run" in heard
    assert "goal met after 2 turns: pytest printed 3 passed" in heard
    shown = await run_command(session, "goal", "")
    assert shown.text.startswith("no active goal; the last one was met after 2 turns: the tests pass")
    await session.aclose()


async def test_the_turn_limit_stops_a_goal_and_clear_and_bad_conditions_say_why(
    openai_only: Dialect, workspace: Path
) -> None:
    for _ in range(2):
        openai_only.reply("Still working.")
        openai_only.reply(NOT_YET)
    session, recorder = session_for(openai_only, workspace, goal_max_turns=2)

    await run_command(session, "goal", "the tests pass")

    assert len(openai_only.server.requests) == 4
    assert "goal stopped after 2 turns: 2 turns, the limit (goal_max_turns = 2)" in notices(recorder)
    assert recorder.of(GoalChanged)[-1].state == "stopped"
    assert (await run_command(session, "goal", "clear")).text == "no goal to clear"
    too_long = await run_command(session, "goal", "x" * 4_001)
    assert too_long.level == "warning" and "at most 4,000 are kept" in too_long.text
    assert len(openai_only.server.requests) == 4  # nothing was sent for it
    await session.aclose()


async def test_esc_while_the_judge_is_asked_stops_the_goal(openai_only: Dialect, workspace: Path) -> None:
    openai_only.reply("Done, I think.")
    openai_only.reply(NOT_YET, stall=60, stall_at=0)  # the judge does not answer
    session, recorder = session_for(openai_only, workspace)

    work = asyncio.create_task(run_command(session, "goal", "the tests pass"))
    await wait_until(lambda: session.goal.judging, what="the judge asked")
    assert session.running and session.cancel()
    await asyncio.wait_for(work, PATIENCE)

    assert "goal stopped after 1 turn: interrupted (Esc)" in notices(recorder)
    assert session.goal.active is None and not session.running
    await session.aclose()


async def test_headless_goal_works_on_after_the_prompt_and_exits_5_when_a_limit_stops_it(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("Fixed.")
    dialect.reply(MET)
    met = await neocode(dialect, workspace, "-p", "fix the tests", "--goal", "the tests pass",
                        "--output-format", "json")
    assert met.code == 0, met.err
    assert json.loads(met.out)["goal"] == {"condition": "the tests pass", "state": "met", "turns": 1,
                                           "reason": "pytest printed 3 passed"}

    dialect.reply("Not yet.")
    dialect.reply(NOT_YET)
    stopped = await run(dialect, workspace, "--goal", "the tests pass", prompt="fix the tests",
                        NEOCODE_GOAL_MAX_TURNS="1")
    assert stopped.code == 5
    assert "goal stopped after 1 turn: 1 turn, the limit (goal_max_turns = 1)" in stopped.err
    assert stopped.out.strip() == "Not yet."
