"""What a listing of saved sessions says of each: its title (the user's, the small model's,
the first prompt's), its latest prompt, its age, what it was forked from; and that the index
behind it follows the files as they grow, and is never believed over them."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from neocode_tui.agent.commands.table import run_command
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.agent.store.session_store import SessionStore, find_session, list_sessions, sessions_dir
from neocode_tui.agent.store.words import age, fork_note, listing_text
from neocode_tui.chat import Message
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.model_server import Response
from tests.support.sessions import make_session
from tests.support.sse import openai_turn


def test_ages_read_as_a_person_says_them() -> None:
    now = datetime(2026, 12, 1, 15, 30)
    said = {when: age(when, now) for when in [
        datetime(2026, 12, 1, 15, 29, 30), datetime(2026, 12, 1, 15, 27), datetime(2026, 12, 1, 10, 0),
        datetime(2026, 12, 1, 0, 5), datetime(2026, 11, 30, 23, 59), datetime(2026, 11, 28, 9, 0),
        datetime(2025, 12, 25, 9, 0), datetime(2026, 12, 1, 16, 0),
    ]}
    assert list(said.values()) == ["just now", "3 min ago", "5 h ago", "15 h ago", "yesterday",
                                   "Nov 28", "Dec 25 2025", "just now"]
    # 20 minutes after midnight, a session of 23:50 is 30 minutes old, not "yesterday"
    assert age(datetime(2026, 11, 30, 23, 50), datetime(2026, 12, 1, 0, 20)) == "30 min ago"


def test_the_latest_prompt_is_the_one_the_user_sent_not_a_note_the_agent_added(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path, provider="openai", model="m")
    for prompt in ("fix the flaky test\nin tests/test_app.py", "now run the suite"):
        store.append_prompt(prompt)
        store.append_message(Message(role="user", content=f"{prompt}\n\n<hook>context</hook>"))
        store.append_message(Message(role="assistant", content="done"))
    store.append_message(Message(role="user", content="[background command b1 ended]"))
    store.close()

    [info] = list_sessions(tmp_path)

    assert (info.title, info.latest_prompt, info.messages) == ("fix the flaky test", "now run the suite", 5)
    assert info.title_by == "prompt" and info.forked_from == ""


def test_a_session_written_before_prompt_records_lists_its_last_user_message(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path, provider="openai", model="m")
    for prompt in ("first question", "second question\nwith details"):
        store.append_message(Message(role="user", content=prompt))
        store.append_message(Message(role="assistant", content="answer"))
    store.close()

    [info] = list_sessions(tmp_path)

    assert (info.title, info.latest_prompt) == ("first question", "second question")


def test_the_index_follows_each_file_and_is_never_believed_over_it(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path, provider="openai", model="m")
    store.append_prompt("one")
    store.append_message(Message(role="user", content="one"))
    assert [(i.latest_prompt, i.messages) for i in list_sessions(tmp_path)] == [("one", 1)]
    index = sessions_dir() / "index.json"
    assert store.path.name in json.loads(index.read_text())["files"]

    store.append_prompt("two")  # read on from where the last listing stopped
    store.append_message(Message(role="user", content="two"))
    store.close()
    assert [(i.latest_prompt, i.messages) for i in list_sessions(tmp_path)] == [("two", 2)]

    # The same file rewritten in place, longer: what the index read of it no longer holds.
    header = store.path.read_text().splitlines()[0]
    rewritten = [header, json.dumps({"type": "prompt", "text": "rewritten " * 15}),
                 json.dumps({"type": "message", "message": {"role": "user", "content": "x"}})]
    with store.path.open("r+") as handle:
        handle.write("\n".join(rewritten) + "\n")
    assert [i.latest_prompt for i in list_sessions(tmp_path)] == [("rewritten " * 15).strip()]

    with store.path.open("r+") as handle:  # cut back to the header and one prompt: shorter
        handle.truncate(len(header) + 1 + len(rewritten[1]) + 1)
    assert [(i.latest_prompt, i.messages) for i in list_sessions(tmp_path, empty=True)] == [
        (("rewritten " * 15).strip(), 0)]
    with store.path.open("a") as handle:
        handle.write(rewritten[2] + "\n")

    index.write_text('{"version": 1, "files": {"' + store.path.name + '": "garbage"}}')
    assert [i.messages for i in list_sessions(tmp_path)] == [1]
    index.write_bytes(b"\xff\x00 not json")
    assert [i.messages for i in list_sessions(tmp_path)] == [1]
    os.chmod(sessions_dir(), 0o500)  # an index that cannot be written: the listing goes on
    try:
        assert [i.messages for i in list_sessions(tmp_path)] == [1]
    finally:
        os.chmod(sessions_dir(), 0o700)


def test_a_line_still_being_written_is_read_once_it_is_whole(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path, provider="openai", model="m")
    store.append_message(Message(role="user", content="first"))
    store.close()
    line = json.dumps({"type": "prompt", "text": "second"}) + "\n"
    with store.path.open("a") as handle:
        handle.write(line[:10])
    assert list_sessions(tmp_path)[0].latest_prompt == "first"
    with store.path.open("a") as handle:
        handle.write(line[10:])
    assert list_sessions(tmp_path)[0].latest_prompt == "second"


async def test_a_rewound_session_is_listed_as_a_fork_of_the_one_it_came_from(
    openai_only: Dialect, workspace: Path
) -> None:
    for answer in ("one", "two", "another"):
        openai_only.reply(answer)
    session, _ = make_session(openai_only, workspace, approval="full-auto")
    await session.prompt("fix the login redirect")
    await session.prompt("add a test for it")
    parent = session.id
    preview = await session.restore.rewind_preview(session.restore.rewind_points()[1].number)
    await session.rewind(preview, files=False)
    await session.prompt("add a test for the expired token instead")
    await session.aclose()

    listed = {info.id: info for info in list_sessions(workspace)}

    assert set(listed) == {parent, session.id}
    fork, old = listed[session.id], listed[parent or ""]
    assert (fork.forked_from, fork.fork_prompt, fork.parent_title) == (parent, 2, "fix the login redirect")
    assert fork.title == old.title == "fix the login redirect"
    assert (old.latest_prompt, fork.latest_prompt) == ("add a test for it", "add a test for the expired token instead")
    assert fork_note(fork) == 'forked from "fix the login redirect" at prompt 2'
    assert fork_note(old) == ""
    text = "\n".join(listing_text(list_sessions(workspace)))
    assert f"{session.id}  " in text and "↳ fix the login redirect" in text
    assert "    › add a test for the expired token instead" in text


def small_model_server(model_server: Any) -> None:
    def answer(body: dict[str, Any]) -> Response:
        if body["model"] == "gpt-4o-mini":
            return Response(body=openai_turn("Login redirect fix"))
        return Response(body=openai_turn("Answer."))

    for _ in range(4):
        model_server.enqueue(answer)


async def test_the_small_model_title_and_a_rename_are_saved_and_the_rename_wins(
    model_server: Any, workspace: Path
) -> None:
    small_model_server(model_server)
    settings = Settings(provider="openai", small_model="gpt-4o-mini", approval="full-auto",
                        base_url=model_server.url + "/v1")
    session = AgentSession(settings, workspace, provider=Dialect("openai", model_server).provider())
    await session.prompt("please fix the login redirect loop")
    assert [(i.title, i.title_by) for i in list_sessions(workspace)] == [("Login redirect fix", "model")]

    asked = await run_command(session, "rename")
    renamed = await run_command(session, "rename", "Login \x1b[31mloop\x07, for real")
    await session.aclose()

    assert asked.text == 'this session is "Login redirect fix"; /rename NEW TITLE renames it'
    assert renamed.text == 'renamed this session "Login [31mloop, for real"'  # no control characters
    [info] = list_sessions(workspace)
    assert (info.title, info.title_by) == ("Login [31mloop, for real", "user")
    again = AgentSession(settings, workspace, provider=Dialect("openai", model_server).provider())
    again.resume(info.id)  # read back from the file
    assert again.title == "Login [31mloop, for real"
    await again.prompt("and the logout one")  # a later prompt keeps the user's title
    await again.aclose()
    assert find_session(workspace, info.id).title == "Login [31mloop, for real"
    assert find_session(workspace, info.id).latest_prompt == "and the logout one"


async def test_a_rename_before_the_first_prompt_is_saved_with_it(openai_only: Dialect, workspace: Path) -> None:
    openai_only.reply("Done.")
    session, _ = make_session(openai_only, workspace, approval="full-auto")
    said = await run_command(session, "rename", "release notes")
    await session.prompt("write the release notes for 0.2")
    await session.aclose()

    assert said.text == 'this session is "release notes"; the name is saved with its first prompt'
    assert [(i.title, i.latest_prompt) for i in list_sessions(workspace)] == [
        ("release notes", "write the release notes for 0.2")]


async def test_a_rewound_session_keeps_the_name_its_parent_was_given(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("one")
    openai_only.reply("two")
    session, _ = make_session(openai_only, workspace, approval="full-auto")
    await session.prompt("first try")
    await session.prompt("second try")
    await run_command(session, "rename", "Retry helper")
    preview = await session.restore.rewind_preview(session.restore.rewind_points()[1].number)
    await session.rewind(preview, files=False)
    await session.aclose()

    fork = find_session(workspace, session.id)
    assert (fork.title, fork.title_by, fork.parent_title) == ("Retry helper", "user", "")
    assert [(i.title, i.forked_from) for i in list_sessions(workspace) if i.id == session.id] == [
        ("Retry helper", fork.forked_from)]
    assert list_sessions(workspace)[0].parent_title == "Retry helper"


def test_finding_one_session_by_id_leaves_the_others_in_the_index(tmp_path: Path) -> None:
    stores = []
    for prompt in ("one", "two"):
        store = SessionStore.create(tmp_path, provider="openai", model="m")
        store.append_message(Message(role="user", content=prompt))
        store.close()
        stores.append(store)
    list_sessions(tmp_path)
    store = SessionStore.create(tmp_path, provider="openai", model="m")
    store.close()

    assert find_session(tmp_path, stores[0].id).title == "one"
    assert find_session(tmp_path, store.id).messages == 0
    indexed = json.loads((sessions_dir() / "index.json").read_text())["files"]
    assert set(indexed) == {s.path.name for s in [*stores, store]}
    store.path.unlink()  # a listing of every file forgets the ones that are gone
    assert sorted(info.title for info in list_sessions(tmp_path)) == ["one", "two"]
    assert set(json.loads((sessions_dir() / "index.json").read_text())["files"]) == {s.path.name for s in stores}
