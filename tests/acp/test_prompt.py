"""A prompt from the editor: streamed text, a tool call growing live, permission, the edit."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from acp import text_block
from acp.schema import (
    AgentMessageChunk,
    FileEditToolCallContent,
    SessionInfoUpdate,
    ToolCallProgress,
)

from tests.acp.conftest import agent_env, editor, spaced
from tests.agent.conftest import API_KEY, Dialect
from tests.http_model_server import openai_turn

ORIGINAL = "def greet():\n    return 'hello'\n\nprint(greet())\n"
EDIT = json.dumps({"path": "app.py", "old_string": "return 'hello'", "new_string": "return 'hi there'"})


async def test_an_allowed_edit_streams_live_asks_with_the_diff_and_changes_the_file(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.server.enqueue(spaced(openai_turn("Let me change the greeting.",
                                            [("edit_file", EDIT)], call_ids=["e1"])))
    model.reply("Done: it now says hi there.")

    async with editor(agent_env(model.server.url, home), workspace) as ed:
        ed.client.answers.append("allow")
        init = next(m["result"] for m in ed.traffic if m.get("id") == 0 and "result" in m)
        assert init["agentCapabilities"]["loadSession"] is True
        assert init["agentCapabilities"]["promptCapabilities"]["embeddedContext"] is True
        session = await ed.conn.new_session(cwd=str(workspace))
        assert session.modes.current_mode_id == "ask"
        assert [m.id for m in session.modes.available_modes] == ["ask", "auto-edit", "full-auto"]

        reply = await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("say hi there")]), 30
        )

    assert reply.stop_reason == "end_turn"
    assert (workspace / "app.py").read_text() == ORIGINAL.replace("'hello'", "'hi there'")
    client = ed.client
    assert client.text() == "Let me change the greeting.Done: it now says hi there."
    chunks = [u for u in client.updates if isinstance(u, AgentMessageChunk)]
    assert len(chunks) > 3  # streamed in pieces, not one message at the end

    [call] = client.calls()
    assert (call.tool_call_id, call.title, call.kind, call.status) == ("e1", "edit_file", "edit", "pending")
    updates = client.call_updates("e1")
    growing = [u.raw_input for u in updates if u.raw_input is not None and u.status is None]
    assert len(growing) >= 3
    lengths = [len(json.dumps(raw)) for raw in growing]
    assert lengths == sorted(lengths) and lengths[0] < lengths[-1]
    assert growing[-1] == json.loads(EDIT)
    assert any(u.title == "edit app.py" for u in updates)
    target = str(workspace / "app.py")
    assert updates[-1].locations is None or updates[-1].locations[0].path == target

    [asked] = client.permissions
    assert asked.tool_call_id == "e1" and asked.title == "edit app.py"
    [diff] = asked.content
    assert isinstance(diff, FileEditToolCallContent)
    assert (diff.path, diff.old_text) == (target, ORIGINAL)
    assert diff.new_text == ORIGINAL.replace("'hello'", "'hi there'")
    assert [o.kind for o in client.options[0]] == ["allow_once", "allow_always", "reject_once"]
    methods = [(m.get("method"), m.get("params", {}).get("update", {}).get("status"))
               for m in ed.traffic if m.get("method")]
    assert methods.index(("session/update", "pending")) < methods.index(
        ("session/request_permission", None)) < methods.index(("session/update", "in_progress"))

    statuses = [u.status for u in updates if u.status]
    assert statuses == ["in_progress", "completed"]
    final = updates[-1]
    assert isinstance(final.content[0], FileEditToolCallContent)
    assert final.content[0].old_text == ORIGINAL and final.content[0].path == target
    [titled] = [u for u in client.updates if isinstance(u, SessionInfoUpdate)]
    assert titled.title == "say hi there"

    assert API_KEY not in ed.wire() + ed.stderr.read_text()
    assert "Traceback" not in ed.stderr.read_text()
