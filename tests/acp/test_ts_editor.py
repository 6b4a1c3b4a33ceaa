"""``neocode acp`` driven by an editor on the official TypeScript ACP SDK (Node), which
parses every message against its own schema: buffers, live output, complete locations,
each prompt's usage, and a session made in one run and prompted in the next."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.support.acp_editor import agent_env
from tests.support.dialects import Dialect
from tests.support.sse import openai_turn, spaced
from tests.support.ts_editor import run_editor

UNSAVED = "def greet():\n    return 'typed but not saved'\n"


async def test_a_typescript_sdk_editor_sees_buffers_live_output_locations_and_usage(
    model: Dialect, workspace: Path, home: Path, tmp_path: Path
) -> None:
    app = workspace / "app.py"
    app.write_text("def greet():\n    return 'hello'\n")
    edit = {"path": "app.py", "old_string": "typed but not saved", "new_string": "hi there"}
    command = "echo first; while [ ! -e go ]; do sleep 0.02; done; echo second"
    model.reply("", [("r1", "read_file", json.dumps({"path": "app.py"}))])
    model.server.enqueue(spaced(openai_turn("", [("edit_file", json.dumps(edit))], call_ids=["e1"])))
    model.reply("", [("b1", "bash", json.dumps({"command": command}))])
    model.reply("Done.")
    env = agent_env(model.server.url, home)

    ed = await run_editor(tmp_path, env, cwd=str(workspace), buffers={str(app): UNSAVED},
                          mode="auto-edit", answer="allow", prompts=["change it, then print"])
    await ed.until("update", lambda line: "first" in json.dumps(line["update"].get("content")))
    shown = json.dumps([u.get("content") for u in ed.updates("tool_call_update")])
    assert "first\\nsecond" not in shown  # the first line shown while the command still runs
    (workspace / "go").touch()
    prompted = await ed.until("prompted")
    await ed.until("done")
    assert await ed.process.wait() == 0  # the SDK parsed every message it was sent

    assert "typed but not saved" in model.tool_results(2)["r1"]
    [write] = [line for line in ed.lines if line["kind"] == "write"]
    assert (write["path"], write["content"]) == (str(app), UNSAVED.replace("typed but not saved", "hi there"))
    assert app.read_text() == "def greet():\n    return 'hello'\n"
    sent = [loc["path"] for u in ed.updates("tool_call_update") if u.get("toolCallId") == "e1"
            for loc in u.get("locations") or []]
    assert sent and set(sent) == {str(app)}
    assert prompted["response"]["stopReason"] == "end_turn"
    assert prompted["response"]["usage"]["inputTokens"] == 40  # four requests of 10
    [usage] = ed.updates("usage_update")
    assert usage["size"] == 128_000 and usage["used"] > 0

    later = await run_editor(tmp_path, env, cwd=str(workspace), prompts=[])
    made = await later.until("session")
    await later.until("done")
    model.reply("Hello again.")
    again = await run_editor(tmp_path, env, cwd=str(workspace), load=made["response"]["sessionId"],
                             prompts=["hello?"])
    answered = await again.until("prompted")
    await again.until("done")
    assert answered["response"]["stopReason"] == "end_turn"
    assert "".join(u["content"]["text"] for u in again.updates("agent_message_chunk")) == "Hello again."
    await asyncio.gather(later.process.wait(), again.process.wait())
