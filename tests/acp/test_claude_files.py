"""A Claude Code setup behind an editor: NextSpark's skills, commands and agents (from npm).
The editor's command list has every skill and a subfolder's commands by their file names;
what an agent lacks is said in its call, never in the agent's answer."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from acp import text_block
from acp.schema import AvailableCommandsUpdate

from tests.support.acp_editor import agent_env, editor
from tests.support.claude_sets import NEXTSPARK, copied
from tests.support.dialects import Dialect
from tests.support.waits import PATIENCE


async def test_skills_and_subfolder_commands_are_offered_and_run(
    model: Dialect, workspace: Path, home: Path
) -> None:
    copied(NEXTSPARK / "skills", home / "home" / ".claude" / "skills")
    copied(NEXTSPARK / "commands", workspace / ".claude" / "commands")
    model.reply("Listed.")
    model.reply("Explained.")

    async with editor(agent_env(model.server.url, home, HOME=str(home / "home")), workspace) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        await ed.client.wait_for(lambda: any(isinstance(u, AvailableCommandsUpdate) for u in ed.client.updates))
        for line in ("/session-management", "/explain the billing flow"):
            await asyncio.wait_for(
                ed.conn.prompt(session_id=session.session_id, prompt=[text_block(line)]), PATIENCE)

    [update] = [u for u in ed.client.updates if isinstance(u, AvailableCommandsUpdate)]
    offered = {c.name: c.description for c in update.available_commands}
    assert offered["session-management"] == "Session Management Skill (user skill)"
    assert offered["explain"].endswith("(project:session)")  # session/explain.md
    assert "create-api" not in offered  # do/ and how-to/ both have one
    assert "do:create-api" in offered and "how-to:create-api" in offered
    assert model.request(1)["messages"][-1]["content"].startswith("# Session Management Skill")
    assert model.request(2)["messages"][-1]["content"] != "/explain the billing flow"


async def test_an_agent_s_missing_tools_and_model_are_said_in_its_call(
    model: Dialect, workspace: Path, home: Path
) -> None:
    copied(NEXTSPARK / "agents", workspace / ".claude" / "agents")
    arguments = json.dumps({"description": "orders", "prompt": "add GET /orders", "agent": "backend-developer"})
    model.reply("", [("t1", "task", arguments)])
    model.reply("GET done.")
    model.reply("The endpoint is there.")

    async with editor(agent_env(model.server.url, home, HOME=str(home / "home")), workspace) as ed:
        ed.client.answers.append("allow")
        session = await ed.conn.new_session(cwd=str(workspace))
        reply = await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("build it")]), PATIENCE)

    assert reply.stop_reason == "end_turn"
    answer = ed.client.text()  # the files not used are said first, as in every front end
    assert answer.endswith("The endpoint is there.") and "mock-analyst.md: no front matter" in answer
    assert "AskUserQuestion" not in answer and "sonnet" not in answer
    said = "\n".join(u.content[0].content.text for u in ed.client.call_updates("t1") if u.content)
    assert "agent backend-developer runs without AskUserQuestion: no such tool here" in said
    assert "asks for the model 'sonnet'" in said
