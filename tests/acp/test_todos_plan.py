"""The task list and the plan hand-off as an editor sees them over ACP: ``plan`` updates,
a permission request for the plan, and ``current_mode_update`` when it is carried out."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from acp import text_block
from acp.schema import AgentPlanUpdate, CurrentModeUpdate

from tests.support.acp_editor import agent_env, editor
from tests.support.calls import PLAN, TODOS, plan_call, todo_call
from tests.support.dialects import Dialect
from tests.support.waits import PATIENCE


def plans(updates: list[object]) -> list[list[tuple[str, str, str]]]:
    return [[(e.content, e.priority, e.status) for e in u.entries]
            for u in updates if isinstance(u, AgentPlanUpdate)]


async def test_the_task_list_is_a_plan_update_and_a_loaded_session_sends_it_again(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("", [todo_call()])
    model.reply("On it.")
    env = agent_env(model.server.url, home)
    expected = [(todo["content"], "medium", todo["status"]) for todo in TODOS]
    async with editor(env, workspace) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        await asyncio.wait_for(ed.conn.prompt(session_id=session.session_id, prompt=[text_block("go")]), PATIENCE)
    assert plans(ed.client.updates) == [expected]
    on_wire = [m for m in ed.traffic if m.get("params", {}).get("update", {}).get("sessionUpdate") == "plan"]
    assert on_wire[0]["params"]["update"]["entries"][1] == {
        "content": "Add a --name flag", "priority": "medium", "status": "in_progress"}

    async with editor(env, workspace) as again:
        await again.conn.load_session(cwd=str(workspace), session_id=session.session_id)
    assert plans(again.client.updates) == [expected]


async def test_a_plan_is_asked_about_and_carrying_it_out_changes_the_editors_mode(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("", [plan_call()])
    model.reply("", [("w", "write_file", json.dumps({"path": "name.txt", "content": "x\n"}))])
    model.reply("Done.")
    async with editor(agent_env(model.server.url, home, NEOCODE_APPROVAL="plan"), workspace) as ed:
        ed.client.answers.append("auto-edit")
        session = await ed.conn.new_session(cwd=str(workspace))
        assert session.modes.current_mode_id == "plan"
        reply = await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("add a flag")]), PATIENCE)

    assert reply.stop_reason == "end_turn"
    [asked] = ed.client.permissions
    assert asked.tool_call_id == "p1" and asked.content[0].content.text == PLAN
    assert [o.option_id for o in ed.client.options[0]] == ["auto-edit", "ask", "plan"]
    assert [u.current_mode_id for u in ed.client.updates if isinstance(u, CurrentModeUpdate)] == ["auto-edit"]
    assert len(ed.client.permissions) == 1  # the write ran in auto-edit without a question
    assert (workspace / "name.txt").read_text() == "x\n"


async def test_keep_planning_from_the_editor_leaves_plan_mode_on(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("", [plan_call()])
    model.reply("I will revise it.")
    async with editor(agent_env(model.server.url, home, NEOCODE_APPROVAL="plan"), workspace) as ed:
        ed.client.answers.append("plan")
        session = await ed.conn.new_session(cwd=str(workspace))
        await asyncio.wait_for(ed.conn.prompt(session_id=session.session_id, prompt=[text_block("go")]), PATIENCE)
    assert not [u for u in ed.client.updates if isinstance(u, CurrentModeUpdate)]
    assert "keep planning" in model.tool_results(2)["p1"]
