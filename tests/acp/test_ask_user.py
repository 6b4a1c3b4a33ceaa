"""The model's ``ask_user`` questions as an editor sees them over ACP: one permission request
per question on the ``ask_user`` call, its options the question's."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import text_block

from tests.support.acp_editor import agent_env, editor
from tests.support.calls import ask_call
from tests.support.dialects import Dialect
from tests.support.waits import PATIENCE


async def test_each_question_is_a_permission_request_and_the_picks_reach_the_model(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("", [ask_call()])
    model.reply("SQLite it is.")
    async with editor(agent_env(model.server.url, home, NEOCODE_APPROVAL="plan"), workspace) as ed:
        ed.client.answers.extend(["1", "2"])
        session = await ed.conn.new_session(cwd=str(workspace))
        reply = await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("build the app")]), PATIENCE)

    assert reply.stop_reason == "end_turn"
    first, second = ed.client.permissions
    assert first.tool_call_id == second.tool_call_id == "q1"
    assert first.title == "Which database should the app use?"
    assert "**SQLite**: one file" in first.content[0].content.text
    assert [o.name for o in ed.client.options[0]] == ["PostgreSQL (Recommended)", "SQLite", "Skip"]
    assert [o.kind for o in ed.client.options[1]] == ["allow_once"] * 3 + ["reject_once"]
    result = model.tool_results(2)["q1"]
    assert '"Which database should the app use?" → SQLite' in result
    assert '"Which parts should come first?" → Export (the editor lets the user pick one option only' in result


async def test_an_editor_that_cannot_answer_is_said_to_the_model(model: Dialect, workspace: Path, home: Path) -> None:
    model.reply("", [ask_call()])
    model.reply("I chose PostgreSQL myself.")
    async with editor(agent_env(model.server.url, home), workspace) as ed:
        ed.client.answers.append("refuse")
        session = await ed.conn.new_session(cwd=str(workspace))
        await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("build the app")]), PATIENCE)

    assert len(ed.client.permissions) == 1
    assert model.tool_results(2)["q1"].startswith("not asked: the editor did not answer the question")
