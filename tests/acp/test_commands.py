"""Custom slash commands reach the editor's completion, and run when a prompt names one."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import text_block
from acp.schema import AvailableCommandsUpdate, CurrentModeUpdate

from neocode_tui.agent.commands.table import COMMANDS
from tests.support.acp_editor import EditorClient, agent_env, editor
from tests.support.dialects import Dialect
from tests.support.waits import PATIENCE


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
            session_id=session.session_id, prompt=[text_block("/project:review app.py")]), PATIENCE)

    [update] = [u for u in ed.client.updates if isinstance(u, AvailableCommandsUpdate)]
    listed = {c.name: (c.description, c.input.root.hint if c.input else None) for c in update.available_commands}
    custom = {name: listed[name] for name in listed if name not in COMMANDS}
    assert custom == {
        "review": ("My review (user)", "arguments"),
        "project:review": ("Review a file (project)", "FILE"),
        "tidy": ("Tidy the imports of every module. (project)", None),
    }
    kinds = [m.get("id") if "result" in m else m.get("params", {}).get("update", {}).get("sessionUpdate")
             for m in ed.traffic]
    assert kinds.index(1) < kinds.index("available_commands_update")  # the id is known by then
    assert "Review app.py my way." in model.request(1)["messages"][-1]["content"]
    assert "Review app.py carefully." in model.request(2)["messages"][-1]["content"]


async def test_every_built_in_command_is_offered_and_answers_without_the_model(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("Hello there.")
    async with editor(agent_env(model.server.url, home), workspace) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        await ed.client.wait_for(lambda: any(isinstance(u, AvailableCommandsUpdate) for u in ed.client.updates))
        [update] = [u for u in ed.client.updates if isinstance(u, AvailableCommandsUpdate)]
        offered = {c.name: c for c in update.available_commands}

        async def ask(line: str) -> str:
            before = len(ed.client.text())
            response = await asyncio.wait_for(
                ed.conn.prompt(session_id=session.session_id, prompt=[text_block(line)]), PATIENCE)
            assert response.stop_reason == "end_turn"
            return ed.client.text()[before:]

        context = await ask("/context")
        cost_before = await ask("/cost")
        await ask("say hello")
        cost_after = await ask("/cost")
        mode = await ask("/approval auto-edit")
        await ed.client.wait_for(lambda: any(isinstance(u, CurrentModeUpdate) for u in ed.client.updates))
        modes = [u for u in ed.client.updates if isinstance(u, CurrentModeUpdate)]

    assert set(COMMANDS) <= set(offered)
    assert offered["compact"].input is not None and offered["compact"].input.root.hint == "[FOCUS]"
    assert offered["context"].description == COMMANDS["context"].help
    assert "context:" in context and "system prompt" in context
    assert "no requests yet" in cost_before
    assert "test-model" in cost_after and "1 request" in cost_after
    assert "mode: auto-edit" in mode
    assert len(model.server.requests) == 1, "only the real prompt reached the model"
    assert [update.current_mode_id for update in modes] == ["auto-edit"]  # the editor's mode menu follows


async def test_undo_over_acp_shows_the_diff_as_a_question_and_writes_the_file_back(
    model: Dialect, workspace: Path, home: Path
) -> None:
    (workspace / "notes.txt").write_text("before\n")
    model.reply(calls=[("call_1", "write_file", '{"path": "notes.txt", "content": "after\\n"}')])
    model.reply("Written.")
    client = EditorClient(answers=["allow", "files"])
    async with editor(agent_env(model.server.url, home), workspace, client) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        await asyncio.wait_for(ed.conn.prompt(session_id=session.session_id,
                                              prompt=[text_block("change the notes")]), PATIENCE)
        assert (workspace / "notes.txt").read_text() == "after\n"
        await asyncio.wait_for(ed.conn.prompt(session_id=session.session_id, prompt=[text_block("/undo")]), PATIENCE)

    question, answer_options = client.permissions[-1], client.options[-1]
    shown = question.content[0].content.text
    assert "Undo the file changes of 'change the notes'?" == question.title
    assert "-after" in shown and "+before" in shown
    assert [option.option_id for option in answer_options] == ["files", "cancel"]
    assert (workspace / "notes.txt").read_text() == "before\n"
    assert "undone: notes.txt" in client.text()
    assert len(model.server.requests) == 2


async def test_a_cancelled_rewind_question_changes_nothing(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("First answer.")
    model.reply("Second answer.")
    client = EditorClient(answers=["cancelled"])
    async with editor(agent_env(model.server.url, home), workspace, client) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        await asyncio.wait_for(ed.conn.prompt(session_id=session.session_id, prompt=[text_block("first")]), PATIENCE)
        listing_at = len(client.text())
        await asyncio.wait_for(ed.conn.prompt(session_id=session.session_id, prompt=[text_block("/rewind")]), PATIENCE)
        listing = client.text()[listing_at:]
        await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("/rewind 1")]), PATIENCE)
        await asyncio.wait_for(ed.conn.prompt(session_id=session.session_id, prompt=[text_block("second")]), PATIENCE)

    assert "1  first" in listing and "/rewind N" in listing
    assert client.permissions[-1].title == "Rewind to before 'first'?"
    assert [option.option_id for option in client.options[-1]] == ["conversation", "cancel"]
    sent = [message["content"] for message in model.request(2)["messages"]]
    assert "first" in sent and "First answer." in sent, "the conversation was not rewound"
