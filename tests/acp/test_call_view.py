"""A tool call the model streams twice: the editor sees the dropped attempt's call fail as
discarded and the retried one run, each under its own id."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import text_block

from tests.support.acp_editor import agent_env, editor
from tests.support.dialects import Dialect
from tests.support.model_server import Response
from tests.support.sse import openai_turn
from tests.support.waits import PATIENCE


async def test_a_retry_mid_call_fails_the_first_attempts_call_and_runs_the_second(
    model: Dialect, workspace: Path, home: Path
) -> None:
    (workspace / "notes.txt").write_text("alpha\n")
    turn = openai_turn("Reading.", [("read_file", '{"path": "notes.txt"}')], call_ids=["r1"])
    model.server.enqueue(Response(body=turn, chunk_sizes=40, cut_after=len(turn) - 60),
                         Response(body=turn))
    model.reply("It says alpha.")

    async with editor(agent_env(model.server.url, home, NEOCODE_MAX_RETRIES="1"), workspace) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        reply = await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("read notes")]), PATIENCE)

    assert reply.stop_reason == "end_turn"
    client = ed.client
    assert [(c.tool_call_id, c.title, c.status) for c in client.calls()] == [
        ("r1", "read_file", "pending"), ("r1-2", "read_file", "pending")]
    [discarded] = [u for u in client.call_updates("r1") if u.status]
    assert discarded.status == "failed"
    assert "discarded: the response was retried" in discarded.content[0].content.text
    statuses = [u.status for u in client.call_updates("r1-2") if u.status]
    assert statuses == ["in_progress", "completed"]
    assert "alpha" in client.call_updates("r1-2")[-1].content[0].content.text
    assert "Traceback" not in ed.stderr.read_text()
