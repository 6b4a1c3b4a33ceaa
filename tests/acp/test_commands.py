"""Custom slash commands reach the editor's completion, and run when a prompt names one."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import text_block
from acp.schema import AvailableCommandsUpdate

from tests.acp.conftest import agent_env, editor
from tests.agent.conftest import Dialect


async def test_the_editor_is_told_the_custom_commands_after_the_session_is_created(
    model: Dialect, workspace: Path, home: Path
) -> None:
    commands = workspace / ".neocode" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $ARGUMENTS carefully.\n"
    )
    (commands / "tidy.md").write_text("Tidy the imports of every module.\n")
    mine = home / "config" / "commands" / "review.md"  # the user's own wins the name
    mine.parent.mkdir(parents=True)
    mine.write_text("---\ndescription: My review\n---\nReview $ARGUMENTS my way.\n")
    model.reply("Reviewed.")
    model.reply("Reviewed the team's way.")

    async with editor(agent_env(model.server.url, home), workspace) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        await ed.client.wait_for(lambda: any(isinstance(u, AvailableCommandsUpdate) for u in ed.client.updates))
        await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("/review app.py")]), 30
        )
        await asyncio.wait_for(ed.conn.prompt(
            session_id=session.session_id, prompt=[text_block("/project:review app.py")]), 30)

    [update] = [u for u in ed.client.updates if isinstance(u, AvailableCommandsUpdate)]
    listed = {c.name: (c.description, c.input.root.hint if c.input else None) for c in update.available_commands}
    assert listed == {
        "review": ("My review (user)", "arguments"),
        "project:review": ("Review a file (project)", "FILE"),
        "tidy": ("Tidy the imports of every module. (project)", None),
    }
    kinds = [m.get("id") if "result" in m else m.get("params", {}).get("update", {}).get("sessionUpdate")
             for m in ed.traffic]
    assert kinds.index(1) < kinds.index("available_commands_update")  # the id is known by then
    assert "Review app.py my way." in model.request(1)["messages"][-1]["content"]
    assert "Review app.py carefully." in model.request(2)["messages"][-1]["content"]
