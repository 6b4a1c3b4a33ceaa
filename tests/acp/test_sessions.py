"""Saved sessions through ACP: load replays the history, list shows them, one made and
never prompted is loaded and prompted later."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp.schema import (
    AgentMessageChunk,
    AvailableCommandsUpdate,
    SessionInfoUpdate,
    ToolCallStart,
    UsageUpdate,
    UserMessageChunk,
)

from neocode_tui.agent.commands.table import COMMANDS
from tests.support.acp_editor import agent_env, editor
from tests.support.dialects import Dialect
from tests.support.ts_editor import run_editor
from tests.support.waits import PATIENCE


async def test_load_replays_a_saved_session_and_continues_it(
    model: Dialect, workspace: Path, home: Path
) -> None:
    env = agent_env(model.server.url, home)
    model.reply("Reading it.", [("r1", "read_file", json.dumps({"path": "app.py"}))])
    model.reply("It greets with hello.")
    async with editor(env, workspace) as first:
        unused = await first.conn.new_session(cwd=str(workspace))
        session = await first.conn.new_session(cwd=str(workspace))
        await first.conn.prompt(session_id=session.session_id,
                                prompt=[text_block("what does app.py do?")])
    saved = sorted(p.stem for p in (home / "data" / "sessions").glob("*.jsonl"))
    assert saved == sorted([session.session_id, unused.session_id])  # both can be loaded later
    assert unused.session_id != session.session_id

    model.reply("It would say hello twice if called twice.")
    async with editor(env, workspace) as second:
        listed = await second.conn.list_sessions(cwd=str(workspace))
        assert sorted((s.session_id, s.title, s.cwd) for s in listed.sessions) == sorted([
            (session.session_id, "what does app.py do?", str(workspace)),
            (unused.session_id, None, str(workspace))])

        loaded = await second.conn.load_session(cwd=str(workspace), session_id=session.session_id)
        replayed = list(second.client.updates)
        again = await asyncio.wait_for(second.conn.prompt(
            session_id=session.session_id, prompt=[text_block("and twice?")]), PATIENCE)

    assert loaded.modes.current_mode_id == "ask"
    kinds = [type(u) for u in replayed]
    assert kinds == [UserMessageChunk, AgentMessageChunk, ToolCallStart, AgentMessageChunk,
                     AvailableCommandsUpdate, UsageUpdate]
    user, reading, call, answer, commands, usage = replayed
    assert usage.used > 0 and usage.size == 128_000  # the loaded history, the assumed window
    assert [c.name for c in commands.available_commands] == list(COMMANDS)  # no custom ones here
    assert user.content.text == "what does app.py do?"
    assert (reading.content.text, answer.content.text) == ("Reading it.", "It greets with hello.")
    assert (call.tool_call_id, call.kind, call.status, call.title) == (
        "r1", "read", "completed", "read app.py")
    assert call.raw_input == {"path": "app.py"}
    assert call.locations[0].path == str(workspace / "app.py")
    assert "return 'hello'" in call.content[0].content.text
    assert again.stop_reason == "end_turn"
    sent = json.dumps(model.request(3)["messages"])
    assert sent.index("what does app.py do?") < sent.index("It greets") < sent.index("and twice?")


async def test_a_session_set_to_plan_mode_is_loaded_in_plan_mode_and_its_edit_refused(
    model: Dialect, workspace: Path, home: Path
) -> None:
    env = agent_env(model.server.url, home)
    model.reply("Looking first.")
    async with editor(env, workspace) as first:
        session = await first.conn.new_session(cwd=str(workspace))
        await first.conn.set_session_mode(session_id=session.session_id, mode_id="plan")
        await first.conn.prompt(session_id=session.session_id, prompt=[text_block("plan a change")])

    model.reply("", [("w1", "write_file", json.dumps({"path": "new.txt", "content": "x"}))])
    model.reply("Still planning.")
    async with editor(env, workspace) as second:
        loaded = await second.conn.load_session(cwd=str(workspace), session_id=session.session_id)
        await asyncio.wait_for(second.conn.prompt(
            session_id=session.session_id, prompt=[text_block("now write it")]), PATIENCE)
    assert loaded.modes.current_mode_id == "plan"
    assert not (workspace / "new.txt").exists() and second.client.permissions == []
    assert "plan mode" in model.tool_results(3)["w1"]


async def test_a_session_left_in_full_auto_is_loaded_asking_and_says_so(
    model: Dialect, workspace: Path, home: Path
) -> None:
    env = agent_env(model.server.url, home)
    async with editor(env, workspace) as first:
        session = await first.conn.new_session(cwd=str(workspace))
        await first.conn.set_session_mode(session_id=session.session_id, mode_id="full-auto")
    async with editor(env, workspace) as second:
        loaded = await second.conn.load_session(cwd=str(workspace), session_id=session.session_id)
    assert loaded.modes.current_mode_id == "ask"
    assert "left in full-auto; it goes on in ask" in second.client.text()


async def test_loading_an_unknown_session_is_a_clear_error(
    model: Dialect, workspace: Path, home: Path
) -> None:
    async with editor(agent_env(model.server.url, home), workspace) as ed:
        with pytest.raises(RequestError) as missing:
            await ed.conn.load_session(cwd=str(workspace), session_id="20990101-000000-abcdef")
    assert str(missing.value) == "no saved session with id '20990101-000000-abcdef'"


async def test_a_session_made_and_never_prompted_is_loaded_and_prompted_in_a_later_run(
    model: Dialect, workspace: Path, home: Path
) -> None:
    """A client that makes sessions first and prompts them later (acpx) finds it again; a
    person's resume picker and ``neocode sessions`` do not list a session with nothing in it."""
    env = agent_env(model.server.url, home)
    async with editor(env, workspace) as first:
        made = await first.conn.new_session(cwd=str(workspace))

    listing = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "neocode_tui", "sessions", cwd=workspace, env=env,
        stdout=asyncio.subprocess.PIPE)
    out, _ = await listing.communicate()
    assert out.decode() == f"no saved sessions for {workspace}\n"

    model.reply("Later, then: hello.")
    async with editor(env, workspace) as second:
        loaded = await second.conn.load_session(cwd=str(workspace), session_id=made.session_id)
        reply = await asyncio.wait_for(second.conn.prompt(
            session_id=made.session_id, prompt=[text_block("say hello")]), PATIENCE)
    assert loaded.modes.current_mode_id == "ask"
    assert reply.stop_reason == "end_turn"
    assert second.client.text() == "Later, then: hello."
    assert "say hello" in json.dumps(model.request(0)["messages"])


async def test_load_replays_the_lines_a_stopped_command_had_printed(
    model: Dialect, workspace: Path, home: Path
) -> None:
    """A command cancelled while it ran shows what it had printed above the words saying it
    was stopped: live, and again when the session is loaded."""
    command = 'for n in $(seq 1 300); do echo "step $n of 300"; done; sleep 600'
    model.reply("", [("c1", "bash", json.dumps({"command": command}))])
    env = agent_env(model.server.url, home)
    async with editor(env, workspace) as first:
        session = await first.conn.new_session(cwd=str(workspace))
        await first.conn.set_session_mode(session_id=session.session_id, mode_id="full-auto")
        running = asyncio.create_task(first.conn.prompt(
            session_id=session.session_id, prompt=[text_block("count")]))
        await first.client.wait_for(lambda: any(
            "step 300 of 300" in block.content.text for u in first.client.call_updates("c1")
            for block in u.content or []))
        await first.conn.cancel(session_id=session.session_id)
        assert (await asyncio.wait_for(running, PATIENCE)).stop_reason == "cancelled"
        live = first.client.call_updates("c1")[-1]

    model.reply("It was stopped at step 300.")
    async with editor(env, workspace) as second:
        await second.conn.load_session(cwd=str(workspace), session_id=session.session_id)
        replayed = next(u for u in second.client.updates if isinstance(u, ToolCallStart))
        await second.conn.prompt(session_id=session.session_id, prompt=[text_block("where?")])

    for shown in (live, replayed):
        assert shown.status == "failed"
        printed, result = (block.content.text for block in shown.content)
        assert printed.startswith("```\n… 100 earlier lines\nstep 101 of 300\n")
        assert printed.endswith("step 300 of 300\n```")
        assert "stopped and may have done part of its work" in result
    sent = json.dumps(model.request(2)["messages"])  # after the load: the same as live
    assert "stopped and may have done part of its work" in sent and "where?" in sent
    assert "step 300 of 300" not in sent  # the editor's, never the model's


async def test_load_replays_the_note_of_a_background_command_s_end_as_neocode_s_not_the_user_s(
    model: Dialect, workspace: Path, home: Path
) -> None:
    """The note the model was sent with the next prompt is shown as it was live: an aside of
    the agent's, after which the user's own words follow."""
    call = json.dumps({"command": "echo built", "run_in_background": True})
    model.reply("", [("b", "bash", call)])
    model.reply("Building.")
    model.reply("The build finished.")
    env = agent_env(model.server.url, home)
    ended = "background command b1 (echo built) ended: exit code 0"

    def said(client: Any) -> list[str]:
        return [u.content.text for u in client.updates if isinstance(u, AgentMessageChunk)]

    async with editor(env, workspace) as first:
        session = await first.conn.new_session(cwd=str(workspace))
        await first.conn.set_session_mode(session_id=session.session_id, mode_id="full-auto")
        await first.conn.prompt(session_id=session.session_id, prompt=[text_block("build it")])
        await first.client.wait_for(lambda: any(ended in text for text in said(first.client)))
        await first.conn.prompt(session_id=session.session_id, prompt=[text_block("done yet?")])
    [asked] = [r.json for r in model.server.requests if "done yet?" in json.dumps(r.json)]
    assert ended in json.dumps(asked["messages"]), "the model was told"

    async with editor(env, workspace) as second:
        await second.conn.load_session(cwd=str(workspace), session_id=session.session_id)
        replayed = list(second.client.updates)

    users = [u.content.text for u in replayed if isinstance(u, UserMessageChunk)]
    assert users == ["build it", "done yet?"]
    [note] = [text for text in said(second.client) if ended in text]
    assert note.startswith(f"\n\n_{ended}; bash_output b1 reads the rest of its output")
    texts = [u.content.text for u in replayed if isinstance(u, AgentMessageChunk | UserMessageChunk)]
    assert texts.index(note) < texts.index("done yet?") < texts.index("The build finished.")


async def test_a_session_renamed_with_slash_rename_is_listed_under_its_new_name(
    model: Dialect, workspace: Path, home: Path
) -> None:
    env = agent_env(model.server.url, home)
    model.reply("It greets.")
    async with editor(env, workspace) as first:
        session = await first.conn.new_session(cwd=str(workspace))
        await first.conn.prompt(session_id=session.session_id, prompt=[text_block("what does app.py do?")])
        await first.conn.prompt(session_id=session.session_id, prompt=[text_block("/rename App tour")])
        told = [u.title for u in first.client.updates if isinstance(u, SessionInfoUpdate)]
        here = await first.conn.list_sessions(cwd=str(workspace))
    async with editor(env, workspace) as second:  # read back from the file by another process
        listed = await second.conn.list_sessions(cwd=str(workspace))

    assert told[-1] == "App tour"
    assert [(s.session_id, s.title) for s in here.sessions] == [(session.session_id, "App tour")]
    assert [(s.session_id, s.title) for s in listed.sessions] == [(session.session_id, "App tour")]
    assert len(model.server.requests) == 1, "the command never reached the model"


async def test_resume_continues_a_saved_session_in_its_mode_without_replaying_it_and_close_ends_it(
    model: Dialect, workspace: Path, home: Path
) -> None:
    env = agent_env(model.server.url, home)
    model.reply("It greets with hello.")
    async with editor(env, workspace) as first:
        assert first.initialized.agent_capabilities.session_capabilities.resume is not None
        assert first.initialized.agent_capabilities.session_capabilities.close is not None
        session = await first.conn.new_session(cwd=str(workspace))
        await first.conn.set_session_mode(session_id=session.session_id, mode_id="plan")
        await first.conn.prompt(session_id=session.session_id, prompt=[text_block("what does app.py do?")])

    model.reply("Still hello.")
    async with editor(env, workspace) as second:
        resumed = await second.conn.resume_session(cwd=str(workspace), session_id=session.session_id)
        history = [u for u in second.client.updates if isinstance(u, UserMessageChunk | AgentMessageChunk)]
        again = await asyncio.wait_for(second.conn.prompt(
            session_id=session.session_id, prompt=[text_block("and now?")]), PATIENCE)
        await second.conn.close_session(session_id=session.session_id)
        with pytest.raises(RequestError) as closed:
            await second.conn.prompt(session_id=session.session_id, prompt=[text_block("more?")])

    assert resumed.modes.current_mode_id == "plan"
    assert history == []  # the editor already shows it: nothing is sent again
    assert again.stop_reason == "end_turn"
    sent = json.dumps(model.request(2)["messages"])
    assert sent.index("what does app.py do?") < sent.index("It greets") < sent.index("and now?")
    assert "no open session" in str(closed.value)
    assert len(model.server.requests) == 2


async def test_an_editor_deletes_a_session_and_an_unknown_one_and_is_refused_one_open_elsewhere(
    model: Dialect, workspace: Path, home: Path, tmp_path: Path
) -> None:
    env = agent_env(model.server.url, home)
    model.reply("Kept open.")
    model.reply("Hello.")
    async with editor(env, workspace) as other:  # another editor holds this one open
        held = await other.conn.new_session(cwd=str(workspace))
        await other.conn.prompt(session_id=held.session_id, prompt=[text_block("keep this")])
        ed = await run_editor(tmp_path, env, cwd=str(workspace), prompts=["hello"],
                              delete=["$session", held.session_id, "0000000000"])
        made = (await ed.until("session"))["response"]
        own = made["sessionId"]
        deleted = await ed.until("deleted", lambda line: line["id"] == "$session")
        busy = await ed.until("refused", lambda line: line["id"] == held.session_id)
        unknown = await ed.until("deleted", lambda line: line["id"] == "0000000000")
        listed = (await ed.until("listed"))["response"]["sessions"]
        await ed.until("done")
        assert await ed.process.wait() == 0  # every answer passed the SDK's schema

    initialized = ed.lines[0]["response"]["agentCapabilities"]["sessionCapabilities"]
    assert "delete" in initialized
    assert deleted["response"] == {}
    assert [session["sessionId"] for session in listed] == [held.session_id]
    assert f"session {held.session_id} is open in another neocode" in busy["error"]["message"]
    assert unknown["response"] == {}, "deleting what is not there succeeds, as ACP asks"
    saved = {path.stem for path in (home / "data" / "sessions").glob("*.jsonl")}
    assert own not in saved and held.session_id in saved
