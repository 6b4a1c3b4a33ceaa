"""``task`` in an editor: one tool call whose content follows the child as it works."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from acp import text_block

from tests.support.acp_editor import agent_env, editor
from tests.support.dialects import Dialect
from tests.support.model_server import Response
from tests.support.waits import PATIENCE


async def test_a_task_is_one_call_updated_as_the_child_works_and_its_write_asks_on_it(
    model: Dialect, workspace: Path, home: Path
) -> None:
    agents = workspace / ".neocode" / "agents"
    agents.mkdir(parents=True)
    (agents / "writer.md").write_text(
        "---\nname: writer\ndescription: Writes notes\ntools: LS, Write\n---\nYou write notes.\n")
    arguments = json.dumps({"description": "write a note", "prompt": "note it", "agent": "writer"})
    model.reply("", [("t1", "task", arguments)])
    model.reply("", [("c1", "list_dir", "{}")])
    model.reply("Listed.\n", [("c2", "write_file", json.dumps({"path": "note.txt", "content": "hi\n"}))])
    shown = asyncio.Event()  # the child's answer waits until the editor shows its write
    model.server.enqueue(Response(body=model.turn("Wrote note.txt."), wait=shown))
    model.reply("The note is written.")

    def live_texts() -> list[str]:
        return [u.content[0].content.text for u in ed.client.call_updates("t1")
                if u.content and u.status is None]

    async with editor(agent_env(model.server.url, home), workspace) as ed:
        ed.client.answers.append("allow")
        session = await ed.conn.new_session(cwd=str(workspace))
        running = asyncio.create_task(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("take a note")]))
        await ed.client.wait_for(lambda: any("→ write_file" in text for text in live_texts()))
        shown.set()
        reply = await asyncio.wait_for(running, PATIENCE)

    assert reply.stop_reason == "end_turn"
    assert (workspace / "note.txt").read_text() == "hi\n"
    client = ed.client
    assert [call.tool_call_id for call in client.calls()] == ["t1"]  # the child's calls are its content
    updates = client.call_updates("t1")
    live = live_texts()
    assert any("→ list_dir" in text for text in live)
    assert any("→ write_file write note.txt" in text and "Listed." in text for text in live)
    [asked] = client.permissions
    assert asked.tool_call_id == "t1" and asked.title.startswith("writer: write note.txt")
    assert updates[-1].status == "completed"
    assert "Wrote note.txt." in updates[-1].content[0].content.text
    assert client.text() == "The note is written."
