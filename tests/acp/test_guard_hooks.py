"""Claude Code guards from npm and PyPI behind an editor: cc-safety-net's denial fails the call
the editor shows, and a Python guard that asks sends the editor a permission request even in
full-auto."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from acp import text_block

from tests.support.acp_editor import agent_env, editor
from tests.support.calls import bash
from tests.support.dialects import Dialect
from tests.support.guards import SECRET, WORK, guarded_project, javascript_guard, python_guards
from tests.support.waits import PATIENCE


def guarded_env(model: Dialect, home: Path) -> dict[str, str]:
    """The editor's agent with the user's home (where the guards are set up) and PATH (node)."""
    return agent_env(model.server.url, home, HOME=str(home / "home"), PATH=os.environ["PATH"],
                     NEOCODE_SANDBOX="off")


async def prompt_in_full_auto(model: Dialect, workspace: Path, home: Path, answer: str | None):
    async with editor(guarded_env(model, home), workspace) as ed:
        if answer is not None:
            ed.client.answers.append(answer)
        session = await ed.conn.new_session(cwd=str(workspace))
        await ed.conn.set_session_mode(session_id=session.session_id, mode_id="full-auto")
        reply = await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("clean up")]), PATIENCE)
    assert reply.stop_reason == "end_turn"
    return ed


async def test_cc_safety_net_denies_git_reset_hard_and_the_editor_sees_why(
    model: Dialect, workspace: Path, home: Path
) -> None:
    javascript_guard(home / "home")
    python_guards(home / "home")
    guarded_project(workspace)
    model.reply("", [bash("r1", "git reset --hard")])
    model.reply("It was blocked.")

    ed = await prompt_in_full_auto(model, workspace, home, None)

    assert (workspace / "app.py").read_text() == WORK
    assert ed.client.permissions == []  # a deny wins over the other guard's ask
    final = ed.client.call_updates("r1")[-1]
    assert final.status == "failed"
    assert "blocked by a PreToolUse hook: BLOCKED by CC Safety Net" in final.content[0].content.text
    assert "Traceback" not in ed.stderr.read_text()


async def test_a_python_guard_s_ask_is_the_editor_s_question(
    model: Dialect, workspace: Path, home: Path
) -> None:
    python_guards(home / "home")
    guarded_project(workspace)
    model.reply("", [("e1", "read_file", json.dumps({"path": ".env"}))])
    model.reply("Left it alone.")

    ed = await prompt_in_full_auto(model, workspace, home, "reject")

    [asked] = ed.client.permissions
    assert asked.tool_call_id == "e1"
    assert ed.client.call_updates("e1")[-1].status == "failed"
    assert model.tool_results(2) == {"e1": "the user denied this call"}
    assert SECRET.split("=")[1] not in ed.wire()
