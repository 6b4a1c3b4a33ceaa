"""Sessions on disk: what a run writes, what survives a kill, and how resume repairs it."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from neocode_tui.agent.loop import AgentLoop
from neocode_tui.agent.store.session_store import (
    SessionNotFound,
    SessionStore,
    find_session,
    list_sessions,
    load_session,
)
from neocode_tui.agent.transcript import NO_RESULT
from neocode_tui.chat import Message, ToolCall
from tests.support.dialects import API_KEY, Dialect


async def test_a_run_is_saved_record_by_record_and_loads_back(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("Reading.", [("s1", "read_file", '{"path": "app.py"}')])
    dialect.reply("It greets.")
    store = SessionStore.create(workspace, provider=dialect.name, model="test-model")
    loop = AgentLoop(dialect.provider(), workspace, approval="full-auto", session=store)

    await loop.run("what is in app.py?")
    store.close()

    records = [json.loads(line) for line in store.path.read_text().splitlines()]
    assert [r["type"] for r in records] == [
        "session", "message", "usage", "message", "message", "usage", "message",
    ]
    assert records[0]["workspace"] == str(workspace.resolve())
    loaded = load_session(find_session(workspace, store.id))
    assert loaded.messages == loop.messages
    assert loaded.usage == loop.usage
    assert API_KEY not in store.path.read_text()


def test_sessions_are_listed_for_their_workspace_newest_first(tmp_path: Path) -> None:
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir(), elsewhere.mkdir()
    titles = ["first task\nwith details", "x" * 100, "other folder"]
    stores = []
    for title, folder in zip(titles, [here, here, elsewhere]):
        store = SessionStore.create(folder, provider="openai", model="m")
        store.append_message(Message(role="user", content=title))
        store.close()
        stores.append(store)
    os.utime(stores[0].path, (time.time() + 5, time.time() + 5))  # the first one used last

    listed = list_sessions(here)

    assert [info.id for info in listed] == [stores[0].id, stores[1].id]
    assert listed[0].title == "first task"
    assert listed[1].title == "x" * 100  # whole: the picker cuts it to the width it has
    assert find_session(here, None).id == stores[0].id
    assert find_session(here, stores[1].id[:-2]).id == stores[1].id


def test_a_listing_follows_each_session_file_as_it_grows(tmp_path: Path) -> None:
    """Listings are remembered per file while it is unchanged; a file that grew is read again."""
    store = SessionStore.create(tmp_path, provider="openai", model="m")
    assert list_sessions(tmp_path) == []  # nothing to resume in it yet
    assert [(info.title, info.messages) for info in list_sessions(tmp_path, empty=True)] == [("", 0)]
    assert find_session(tmp_path, store.id).messages == 0  # by its id it is there

    store.append_message(Message(role="user", content="now with a title"))
    assert [(info.title, info.messages) for info in list_sessions(tmp_path)] == [("now with a title", 1)]
    store.append_message(Message(role="assistant", content="and an answer"))
    store.close()
    assert list_sessions(tmp_path)[0].messages == 2
    assert find_session(tmp_path, store.id).messages == 2
    assert list_sessions(tmp_path / "elsewhere") == []


def test_resume_repairs_a_dangling_tail_the_same_way_on_every_load(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path, provider="openai", model="m")
    store.append_message(Message(role="user", content="run two things"))
    store.append_message(Message(role="assistant", content="", tool_calls=[
        ToolCall(id="d1", name="bash", arguments='{"command": "make"}'),
        ToolCall(id="d2", name="read_file", arguments='{"path": "a"}'),
    ]))
    store.append_message(Message(role="tool", content="built", tool_call_id="d1", name="bash"))
    store.close()
    with store.path.open("ab") as handle:  # torn inside a two-byte character
        handle.write('{"type": "message", "message": {"role": "tool", "content": "café'.encode()[:-1])

    resumed, session = SessionStore.resume(find_session(tmp_path, store.id))
    resumed.append_message(Message(role="user", content="continue"))
    resumed.close()

    messages = session.messages
    assert [(m.role, m.content) for m in messages[-2:]] == [("tool", "built"), ("tool", NO_RESULT)]
    assert messages[-1].tool_call_id == "d2" and messages[-1].is_error
    reloaded = load_session(find_session(tmp_path, store.id)).messages
    assert reloaded == [*messages, Message(role="user", content="continue")]


def test_unknown_or_ambiguous_ids_say_so(tmp_path: Path) -> None:
    first = SessionStore.create(tmp_path, provider="openai", model="m")
    second = SessionStore.create(tmp_path, provider="openai", model="m")
    first.close(), second.close()
    common = os.path.commonprefix([first.id, second.id])
    with pytest.raises(SessionNotFound, match="matches 2 sessions"):
        find_session(tmp_path, common)
    with pytest.raises(SessionNotFound, match="no saved session with id 'zzz'"):
        find_session(tmp_path, "zzz")
