"""An editor that offers its buffers: the model reads the user's unsaved text and its edit
lands in the buffer, with confinement and approval as for the disk."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from acp import text_block
from acp.schema import FileEditToolCallContent

from tests.support.acp_editor import EditorClient, agent_env, editor
from tests.support.dialects import Dialect
from tests.support.waits import PATIENCE

ON_DISK = "def greet():\n    return 'hello'\n"
UNSAVED = "def greet():\n    return 'typed but not saved'\n"


async def test_reads_and_edits_go_through_the_editors_buffer(
    model: Dialect, workspace: Path, home: Path
) -> None:
    app = workspace / "app.py"
    app.write_text(ON_DISK)
    (workspace.parent / "outside.txt").write_text("not yours")
    edit = {"path": "app.py", "old_string": "typed but not saved", "new_string": "hi there"}
    model.reply("", [("r1", "read_file", json.dumps({"path": "app.py"})),
                     ("r2", "read_file", json.dumps({"path": "../outside.txt"}))])
    model.reply("", [("e1", "edit_file", json.dumps(edit))])
    model.reply("Changed the unsaved line.")
    client = EditorClient(buffers={str(app): UNSAVED}, answers=["allow"])

    async with editor(agent_env(model.server.url, home), workspace, client) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        reply = await asyncio.wait_for(ed.conn.prompt(
            session_id=session.session_id, prompt=[text_block("change the greeting")]), PATIENCE)

    assert reply.stop_reason == "end_turn"
    results = model.tool_results(2)
    assert "typed but not saved" in results["r1"] and "hello" not in results["r1"]
    assert "outside the workspace" in results["r2"]  # confined before the editor is asked
    # read_file; the edit planned for the approval's diff, and again as it runs; its write
    assert client.file_calls == [("read", str(app))] * 3 + [("write", str(app))]
    [asked] = client.permissions
    [diff] = asked.content
    assert isinstance(diff, FileEditToolCallContent)
    assert (diff.old_text, diff.new_text) == (UNSAVED, UNSAVED.replace("typed but not saved", "hi there"))
    assert client.buffers[str(app)] == "def greet():\n    return 'hi there'\n"
    assert app.read_text() == ON_DISK  # the editor saves its buffer when the user does


async def test_an_editor_without_buffers_is_never_asked_for_files(
    model: Dialect, workspace: Path, home: Path
) -> None:
    (workspace / "app.py").write_text(ON_DISK)
    model.reply("", [("r1", "read_file", json.dumps({"path": "app.py"}))])
    model.reply("It says hello.")
    async with editor(agent_env(model.server.url, home), workspace) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        await ed.conn.prompt(session_id=session.session_id, prompt=[text_block("read it")])
    assert "hello" in model.tool_results(2)["r1"]
    assert not any(m.get("method", "").startswith("fs/") for m in ed.traffic)
