"""A prompt from the editor: streamed text, a tool call growing live, permission, the edit."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp.schema import (
    AgentMessageChunk,
    FileEditToolCallContent,
    SessionInfoUpdate,
    UsageUpdate,
)

from tests.support.acp_editor import agent_env, editor
from tests.support.dialects import API_KEY, Dialect
from tests.support.model_server import Response
from tests.support.sse import openai_turn, spaced
from tests.support.waits import PATIENCE

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
        assert [m.id for m in session.modes.available_modes] == ["ask", "auto-edit", "full-auto", "plan"]
        assert session.modes.available_modes[1].description == (  # the app's own words
            "File changes and sandboxed commands run; commands outside the sandbox ask")

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
    sent = [loc.path for u in updates if u.locations for loc in u.locations]
    assert sent and set(sent) == {target}  # never a path still streaming ("ap" of "app.py")
    assert {u.title for u in updates if u.title} == {"edit app.py"}

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


async def test_a_rejected_edit_leaves_the_file_unchanged_and_tells_the_model(
    model: Dialect, workspace: Path, home: Path
) -> None:
    write = json.dumps({"path": "app.py", "content": "print('replaced')\n"})
    model.reply("", [("w1", "write_file", write)])
    model.reply("Understood, I left app.py alone.")

    async with editor(agent_env(model.server.url, home), workspace) as ed:
        ed.client.answers.append("reject")
        session = await ed.conn.new_session(cwd=str(workspace))
        reply = await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("replace app.py")]), 30
        )

    assert reply.stop_reason == "end_turn"
    assert (workspace / "app.py").read_text() == ORIGINAL
    [asked] = ed.client.permissions
    [diff] = asked.content
    assert diff.old_text == ORIGINAL and diff.new_text == "print('replaced')\n"
    final = ed.client.call_updates("w1")[-1]
    assert final.status == "failed"
    assert "the user denied this call" in final.content[0].content.text
    assert model.tool_results(2) == {"w1": "the user denied this call"}
    assert ed.client.text() == "Understood, I left app.py alone."


async def test_always_allow_asks_once_per_tool_and_full_auto_mode_never_asks(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("", [("a1", "write_file", json.dumps({"path": "a.txt", "content": "a\n"}))])
    model.reply("", [("a2", "write_file", json.dumps({"path": "b.txt", "content": "b\n"}))])
    model.reply("Two files.")
    model.reply("", [("c1", "bash", json.dumps({"command": "echo made > c.txt"}))])
    model.reply("Ran it.")

    async with editor(agent_env(model.server.url, home), workspace) as ed:
        ed.client.answers.append("allow-always")
        session = await ed.conn.new_session(cwd=str(workspace))
        await ed.conn.prompt(session_id=session.session_id, prompt=[text_block("make a and b")])
        assert len(ed.client.permissions) == 1
        assert (workspace / "a.txt").read_text() == "a\n" and (workspace / "b.txt").read_text() == "b\n"

        await ed.conn.set_session_mode(session_id=session.session_id, mode_id="full-auto")
        reply = await ed.conn.prompt(session_id=session.session_id, prompt=[text_block("make c")])

    assert reply.stop_reason == "end_turn"
    assert len(ed.client.permissions) == 1  # bash ran without a question in full-auto
    assert (workspace / "c.txt").read_text() == "made\n"
    [bash] = [c for c in ed.client.calls() if c.tool_call_id == "c1"]
    assert bash.kind == "execute"
    assert ed.client.call_updates("c1")[-1].status == "completed"


async def test_cancel_mid_stream_ends_the_prompt_cancelled_and_the_session_goes_on(
    model: Dialect, workspace: Path, home: Path
) -> None:
    first = openai_turn("Counting slowly: one, two, three, four, five, six, seven.")
    model.server.enqueue(spaced(first, stall=60, stall_at=len(first) // 2))
    model.reply("Still here.")

    async with editor(agent_env(model.server.url, home), workspace) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        sid = session.session_id
        running = asyncio.create_task(ed.conn.prompt(session_id=sid, prompt=[text_block("count")]))
        await ed.client.wait_for(lambda: "one" in ed.client.text())
        await ed.conn.cancel(session_id=sid)
        reply = await asyncio.wait_for(running, PATIENCE)
        assert reply.stop_reason == "cancelled"
        partial = ed.client.text()
        assert partial.startswith("Counting slowly") and "seven" not in partial

        again = await asyncio.wait_for(
            ed.conn.prompt(session_id=sid, prompt=[text_block("are you there?")]), 30
        )

    assert again.stop_reason == "end_turn"
    assert ed.client.text() == partial + "Still here."
    sent = json.dumps(model.request(2)["messages"])
    assert sent.index("count") < sent.index(partial) < sent.index("are you there?")


async def test_cancel_while_permission_is_asked_runs_nothing(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("", [("h1", "bash", json.dumps({"command": "echo ran > ran.txt"}))])
    model.reply("Cancelled, so nothing ran.")

    async with editor(agent_env(model.server.url, home), workspace) as ed:
        ed.client.answers.append("hold")
        session = await ed.conn.new_session(cwd=str(workspace))
        sid = session.session_id
        running = asyncio.create_task(ed.conn.prompt(session_id=sid, prompt=[text_block("run")]))
        await ed.client.wait_for(lambda: ed.client.permissions)
        await ed.conn.cancel(session_id=sid)
        reply = await asyncio.wait_for(running, PATIENCE)
        ed.client.release.set()
        assert reply.stop_reason == "cancelled"
        [asked] = ed.client.permissions
        assert "echo ran > ran.txt" in asked.content[0].content.text
        again = await ed.conn.prompt(session_id=sid, prompt=[text_block("did it run?")])

    assert again.stop_reason == "end_turn"
    assert not (workspace / "ran.txt").exists()
    assert ed.client.call_updates("h1")[-1].status == "failed"


async def test_a_failed_request_is_an_error_in_plain_words_and_the_session_goes_on(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.server.enqueue(Response(status=500, headers={"content-type": "application/json"},
                                  body=b'{"error": {"message": "the GPU is on fire"}}'))
    model.reply("Better now.")

    async with editor(agent_env(model.server.url, home), workspace) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        with pytest.raises(RequestError) as failed:
            await ed.conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        again = await ed.conn.prompt(session_id=session.session_id, prompt=[text_block("retry")])

    assert "the GPU is on fire" in str(failed.value)
    assert again.stop_reason == "end_turn" and ed.client.text() == "Better now."
    assert "Traceback" not in ed.stderr.read_text()


async def test_a_key_in_an_edited_file_never_reaches_the_editor(
    model: Dialect, workspace: Path, home: Path
) -> None:
    (workspace / "notes.txt").write_text(f"key={API_KEY}\ntodo: write tests\n")
    edit = json.dumps({"path": "notes.txt", "old_string": "todo: write tests",
                       "new_string": "todo: done"})
    model.reply("", [("k1", "edit_file", edit)])
    model.reply("Marked done.")

    async with editor(agent_env(model.server.url, home), workspace) as ed:
        ed.client.answers.append("allow")
        session = await ed.conn.new_session(cwd=str(workspace))
        await ed.conn.prompt(session_id=session.session_id, prompt=[text_block("mark it done")])

    [asked] = ed.client.permissions
    assert asked.content[0].old_text == "key=[redacted]\ntodo: write tests\n"
    assert API_KEY not in ed.wire()
    assert (workspace / "notes.txt").read_text() == f"key={API_KEY}\ntodo: done\n"


async def test_a_key_the_model_streams_three_characters_at_a_time_never_reaches_the_editor(
    model: Dialect, workspace: Path, home: Path
) -> None:
    arguments = json.dumps({"path": f"{API_KEY}.txt"})
    model.server.enqueue(Response(body=openai_turn(f"The key is {API_KEY}, done.", [("read_file", arguments)],
                                                   call_ids=["r1"], delta=3), chunk_sizes=[5, 9]))
    model.reply("No such file.")

    async with editor(agent_env(model.server.url, home), workspace) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        await ed.conn.prompt(session_id=session.session_id, prompt=[text_block("my key?")])

    assert ed.client.text() == "The key is [redacted], done.No such file."
    wire = ed.wire()
    assert "[redacted].txt" in wire
    assert all(API_KEY[at : at + 8] not in wire for at in range(len(API_KEY) - 7))


async def test_the_turn_limit_and_a_content_filter_are_their_acp_stop_reasons(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("Reading first.", [("t1", "read_file", json.dumps({"path": "app.py"}))])
    model.reply("Out of turns: I read app.py and stopped.")
    model.server.enqueue(Response(body=openai_turn("I can't help with that.",
                                                   finish="content_filter")))

    async with editor(agent_env(model.server.url, home), workspace, None, "--max-turns", "1") as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        limited = await ed.conn.prompt(session_id=session.session_id,
                                       prompt=[text_block("read everything")])
        filtered = await ed.conn.prompt(session_id=session.session_id,
                                        prompt=[text_block("something forbidden")])

    assert limited.stop_reason == "max_turn_requests"
    assert filtered.stop_reason == "refusal"
    assert "Out of turns" in ed.client.text()


async def test_a_command_printing_megabytes_shows_its_last_lines_in_small_updates(
    model: Dialect, workspace: Path, home: Path
) -> None:
    """Each live update carries the command's last lines under a count of the rest, not
    everything printed so far (10 MB resent per update, and drawn per piece of output)."""
    ed, reply, _ = await held_command(
        model, workspace, home, "seq 1 1500000", lambda texts: any("\n1500000\n" in t for t in texts))

    assert reply.stop_reason == "end_turn"
    shown = next(t for t in live_texts(ed) if "\n1500000\n" in t)
    assert shown.startswith("```\n… 1,499,800 earlier lines\n1499801\n")
    assert max(len(t) for t in live_texts(ed)) < 20_000
    assert ed.client.call_updates("c1")[-1].status == "completed"


async def test_a_commands_first_line_reaches_the_editor_while_it_still_runs(
    model: Dialect, workspace: Path, home: Path
) -> None:
    """Live output is not held back for the next event: the command waits for a file the
    test makes only once the editor has shown its first line."""
    ed, reply, seen = await held_command(
        model, workspace, home, "echo first", lambda texts: any("first" in t for t in texts))

    assert not any("last" in t for t in seen)
    assert reply.stop_reason == "end_turn"
    assert "first\nlast" in ed.client.call_updates("c1")[-1].content[0].content.text


async def held_command(
    model: Dialect, workspace: Path, home: Path, before: str, shown: Callable[[list[str]], bool]
) -> tuple[Any, Any, list[str]]:
    """``before``, then a wait for a file ``go`` the test makes only once the editor's live
    updates are ``shown``, then ``echo last``, in full-auto; the editor, the reply and the
    live texts at the moment ``go`` was made."""
    command = f"{before}; while [ ! -e go ]; do sleep 0.02; done; echo last"
    model.reply("", [("c1", "bash", json.dumps({"command": command}))])
    model.reply("Printed.")
    async with editor(agent_env(model.server.url, home), workspace) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        await ed.conn.set_session_mode(session_id=session.session_id, mode_id="full-auto")
        running = asyncio.create_task(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("print")]))
        await ed.client.wait_for(lambda: shown(live_texts(ed)))
        seen = live_texts(ed)
        (workspace / "go").touch()
        reply = await asyncio.wait_for(running, PATIENCE)
    return ed, reply, seen


def live_texts(ed: Any) -> list[str]:
    return [block.content.text for u in ed.client.call_updates("c1") if u.status is None
            for block in u.content or []]


async def test_each_prompt_reports_its_own_tokens_and_the_context_it_leaves(
    model: Dialect, workspace: Path, home: Path
) -> None:
    """``PromptResponse.usage`` is the prompt's requests, not the session's running total
    (also after a load); a ``usage_update`` says the context used against the window."""
    env = agent_env(model.server.url, home, NEOCODE_CONTEXT_WINDOW="50000")
    model.server.enqueue(
        Response(body=openai_turn("", [("read_file", json.dumps({"path": "app.py"}))],
                                  usage=(1000, 40))),
        Response(body=openai_turn("It greets.", usage=(1200, 30))),
        Response(body=openai_turn("Twice.", usage=(1300, 20))))
    async with editor(env, workspace) as first:
        session = await first.conn.new_session(cwd=str(workspace))
        one = await first.conn.prompt(session_id=session.session_id, prompt=[text_block("read")])
        await first.client.wait_for(lambda: usages(first))
        after_one = usages(first)[-1]
    async with editor(env, workspace) as second:
        await second.conn.load_session(cwd=str(workspace), session_id=session.session_id)
        loaded = usages(second)[-1]
        two = await second.conn.prompt(session_id=session.session_id, prompt=[text_block("again")])
        await second.client.wait_for(lambda: len(usages(second)) > 1)
        after_two = usages(second)[-1]

    assert (one.usage.input_tokens, one.usage.output_tokens, one.usage.total_tokens) == (2200, 70, 2270)
    assert (two.usage.input_tokens, two.usage.output_tokens) == (1300, 20)  # not 3500 and 90
    assert (after_one.used, after_one.size) == (1230, 50000)  # the last request and its answer
    assert loaded.size == 50000 and loaded.used > 0  # estimated from the loaded history
    assert (after_two.used, after_two.size) == (1320, 50000)


def usages(ed: Any) -> list[UsageUpdate]:
    return [u for u in ed.client.updates if isinstance(u, UsageUpdate)]
