"""The task list and the plan hand-off in the core and headless: a real session (or a real
``neocode -p``) against the loopback model."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.agent.loop_events import (
    ModeChanged,
    PlanDecision,
    PlanProposed,
    TodosChanged,
)
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.agent.session.front_end import PlanReview
from neocode_tui.settings.model import Settings
from tests.support.calls import PLAN, TODOS, plan_call, todo_call
from tests.support.dialects import API_KEY, Dialect
from tests.support.headless import neocode
from tests.support.recorder import Recorder


def offered(dialect: Dialect, number: int) -> list[str]:
    tools = dialect.request(number)["tools"]
    return [tool["function"]["name"] if dialect.name == "openai" else tool["name"] for tool in tools]


def session_for(
    dialect: Dialect, workspace: Path, approval: str = "full-auto", plan_review: PlanReview | None = None
) -> tuple[AgentSession, Recorder]:
    recorder = Recorder()
    settings = Settings(provider=dialect.name, approval=approval, sandbox="off", openai_api_key=API_KEY)
    front = FrontEnd(listener=recorder, plan_review=plan_review)
    session = AgentSession(settings, workspace, front, provider=dialect.provider())
    return session, recorder


async def test_todo_write_replaces_the_list_and_a_resume_brings_it_back(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("", [todo_call("t1", TODOS[:1])])
    dialect.reply("", [todo_call("t2")])
    dialect.reply("Working on it.")
    session, recorder = session_for(dialect, workspace)
    await session.prompt("add a --name flag")

    lists = [[todo.model_dump() for todo in event.todos] for event in recorder.of(TodosChanged)]
    assert lists == [TODOS[:1], TODOS]  # each call replaces the whole list
    assert dialect.tool_results(3)["t2"] == "The task list is updated: 1 of 3 done, 1 in progress."
    session_id = session.id
    await session.aclose()

    again, heard = session_for(dialect, workspace)
    again.resume(session_id)
    [resumed] = heard.of(TodosChanged)
    assert [todo.model_dump() for todo in resumed.todos] == TODOS
    again.clear()
    assert heard.of(TodosChanged)[-1].todos == [] and again.own_tools.todos == []
    await again.aclose()


async def test_a_bad_task_list_is_refused_with_a_reason_and_keys_never_reach_the_list(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [todo_call("bad", [{"content": "x", "status": "started"}])])
    openai_only.reply("", [todo_call("key", [{"content": f"use {API_KEY}", "status": "pending"}])])
    openai_only.reply("Done.")
    session, recorder = session_for(openai_only, workspace)
    await session.prompt("plan it")

    assert "invalid arguments for todo_write: todos.0.status" in openai_only.tool_results(2)["bad"]
    [event] = recorder.of(TodosChanged)
    assert API_KEY not in event.todos[0].content and API_KEY not in session.own_tools.todos[0].content
    await session.aclose()


async def test_exit_plan_mode_is_offered_in_plan_mode_only_and_carrying_out_switches_the_mode(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("", [plan_call()])
    dialect.reply("", [("w", "write_file", json.dumps({"path": "name.txt", "content": "x\n"}))])
    dialect.reply("Done.")
    asked: list[PlanProposed] = []

    async def carry_out(proposed: PlanProposed) -> PlanDecision:
        asked.append(proposed)
        return PlanDecision(mode="auto-edit")

    session, recorder = session_for(dialect, workspace, approval="plan", plan_review=carry_out)
    finished = await session.prompt("add a --name flag")

    assert finished.final_text == "Done."
    assert "exit_plan_mode" in offered(dialect, 1) and "exit_plan_mode" not in offered(dialect, 2)
    assert "todo_write" in offered(dialect, 1) and "todo_write" in offered(dialect, 2)
    assert [(p.plan, p.call_id) for p in asked] == [(PLAN, "p1")]
    assert session.approval == "auto-edit" and [e.mode for e in recorder.of(ModeChanged)] == ["auto-edit"]
    assert "The user approved the plan. The mode is now auto-edit" in dialect.tool_results(2)["p1"]
    assert (workspace / "name.txt").read_text() == "x\n"  # the plan carried out without asking
    await session.aclose()


async def test_keep_planning_sends_the_feedback_and_stays_in_plan_mode(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [plan_call()])
    openai_only.reply("Revised: I will also update the README.")

    async def keep(_: PlanProposed) -> PlanDecision:
        return PlanDecision(mode="plan", feedback="also update the README")

    session, _ = session_for(openai_only, workspace, approval="plan", plan_review=keep)
    await session.prompt("add a --name flag")

    result = openai_only.tool_results(2)["p1"]
    assert "keep planning" in result and "also update the README" in result
    assert session.approval == "plan" and "exit_plan_mode" in offered(openai_only, 2)
    await session.aclose()


async def test_exit_plan_mode_out_of_plan_mode_hands_nothing_over(openai_only: Dialect, workspace: Path) -> None:
    openai_only.reply("", [plan_call()])
    openai_only.reply("Carrying on.")
    session, recorder = session_for(openai_only, workspace)
    await session.prompt("go")
    assert openai_only.tool_results(2)["p1"].startswith("not in plan mode")
    assert not recorder.of(PlanProposed)
    await session.aclose()


async def test_stream_json_emits_the_whole_list_as_a_todo_event(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [todo_call()])
    openai_only.reply("Done.")
    result = await neocode(openai_only, workspace, "-p", "go", "--output-format", "stream-json")
    assert result.code == 0, result.err
    lines = [json.loads(line) for line in result.out.splitlines()]
    [todo] = [line for line in lines if line["type"] == "todo"]
    assert todo["todos"] == TODOS


async def test_a_headless_plan_run_ends_with_the_plan_as_its_result(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("Let me look first.", [("r", "read_file", '{"path": "app.py"}')])
    dialect.reply("", [todo_call(), plan_call()])
    result = await neocode(dialect, workspace, "-p", "add a flag", "--approval", "plan",
                           "--output-format", "json")
    assert result.code == 0, result.err
    output = json.loads(result.out)
    assert output["result"] == PLAN and output["stop_reason"] == "done"
    assert output["todos"] == TODOS
    assert len(dialect.server.requests) == 2  # no request after the plan: it is the answer

    dialect.reply("", [plan_call()])
    text = await neocode(dialect, workspace, "-p", "add a flag", "--approval", "plan")
    assert text.code == 0 and text.out == PLAN + "\n"

    dialect.reply("", [plan_call()])
    streamed = await neocode(dialect, workspace, "-p", "add a flag", "--approval", "plan",
                             "--output-format", "stream-json")
    lines = [json.loads(line) for line in streamed.out.splitlines()]
    [plan] = [line for line in lines if line["type"] == "plan"]
    assert (plan["plan"], plan["call_id"]) == (PLAN, "p1")
    assert lines[-1]["type"] == "run_finished" and lines[-1]["final_text"] == PLAN
