"""One writer per session: a second process that opens it is told who has it, and can fork it;
the lock goes with the process that held it, however it ends."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from neocode_tui.agent.store.session_store import (
    SessionBusy,
    SessionStore,
    find_session,
    list_sessions,
    load_session,
)
from neocode_tui.agent.transcript import NO_RESULT
from neocode_tui.chat import Message, ToolCall
from neocode_tui.events import Usage
from tests.support.transcripts import assert_valid
from tests.support.waits import PATIENCE

ROOT = Path(__file__).parent.parent.parent

OPEN = """
import sys
from pathlib import Path
from neocode_tui.agent.store.session_store import SessionStore, find_session
from neocode_tui.errors import SessionError
from neocode_tui.chat import Message
try:
    if sys.argv[1] == "new":
        store = SessionStore.create(Path.cwd(), provider="openai", model="m")
    else:
        store, _ = SessionStore.resume(find_session(Path.cwd(), sys.argv[1]))
except SessionError as exc:
    print(f"neocode: {exc}", file=sys.stderr)
    sys.exit(1)
store.append_message(Message(role="user", content=sys.argv[2]))
print(store.id, flush=True)
sys.stdin.read()  # holds the session until its stdin closes
store.append_message(Message(role="assistant", content="done: " + sys.argv[2]))
store.close()
"""


def open_session(workspace: Path, session_id: str, prompt: str) -> subprocess.Popen[str]:
    """A neocode-like process that opens the session, writes ``prompt`` and holds it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", OPEN, session_id, prompt], cwd=workspace,
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def held(process: subprocess.Popen[str]) -> str:
    """The id of the session ``process`` has open, once it has it."""
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    assert line, process.communicate()[1]
    return line


def saved_session(workspace: Path) -> SessionStore:
    store = SessionStore.create(workspace, provider="openai", model="m")
    store.append_message(Message(role="user", content="start"))
    store.append_message(Message(role="assistant", tool_calls=[
        ToolCall(id="t1", name="bash", arguments='{"command": "make"}')]))
    store.append_message(Message(role="tool", content="built", tool_call_id="t1", name="bash"))
    store.append_usage(Usage(input_tokens=100, output_tokens=7))
    store.close()
    return store


def test_a_second_process_is_told_the_session_is_open_and_by_whom(workspace: Path) -> None:
    store = saved_session(workspace)
    first = open_session(workspace, store.id, "from the first")
    try:
        assert held(first) == store.id
        second = open_session(workspace, store.id, "from the second")
        _, err = second.communicate(timeout=PATIENCE)
        assert second.returncode == 1
        assert err.startswith(f"neocode: session {store.id} is open in another neocode (pid {first.pid})")
    finally:
        first.communicate("", timeout=PATIENCE)  # the first finishes its turn and closes

    third = open_session(workspace, store.id, "from the third")
    assert held(third) == store.id  # free again
    third.communicate("", timeout=PATIENCE)
    messages = load_session(find_session(workspace, store.id)).messages
    assert [m.content for m in messages if m.role != "tool"] == [
        "start", "", "from the first", "done: from the first", "from the third",
        "done: from the third",
    ]
    assert NO_RESULT not in json.dumps([m.model_dump() for m in messages])
    assert_valid(messages)


def test_the_lock_dies_with_its_process(workspace: Path) -> None:
    store = saved_session(workspace)
    holder = open_session(workspace, store.id, "then killed")
    held(holder)
    with pytest.raises(SessionBusy) as busy:
        SessionStore.resume(find_session(workspace, store.id))
    assert busy.value.pid == holder.pid

    holder.send_signal(signal.SIGKILL)
    holder.communicate(timeout=PATIENCE)

    resumed, session = SessionStore.resume(find_session(workspace, store.id))
    resumed.close()
    assert session.messages[-1] == Message(role="user", content="then killed")


def test_resume_reads_what_the_other_process_wrote_before_it_let_go(workspace: Path) -> None:
    store = saved_session(workspace)
    found = find_session(workspace, store.id)  # found, then the other one writes
    other = open_session(workspace, store.id, "written meanwhile")
    held(other)
    other.communicate("", timeout=PATIENCE)

    resumed, session = SessionStore.resume(found)
    resumed.close()

    assert [m.content for m in session.messages[-2:]] == ["written meanwhile", "done: written meanwhile"]


def test_a_new_session_is_locked_from_the_start(workspace: Path) -> None:
    holder = open_session(workspace, "new", "a fresh one")
    try:
        session_id = held(holder)
        latest = find_session(workspace, None)  # what --continue picks
        assert latest.id == session_id
        with pytest.raises(SessionBusy, match=f"session {session_id} is open in another neocode"):
            SessionStore.resume(latest)
    finally:
        holder.communicate("", timeout=PATIENCE)


def test_an_open_session_can_be_forked(workspace: Path) -> None:
    store = saved_session(workspace)
    holder = open_session(workspace, store.id, "still running there")
    try:
        held(holder)
        loaded = load_session(find_session(workspace, store.id))
        fork, messages = SessionStore.fork(loaded, workspace, provider="openai", model="m")
        fork.append_message(Message(role="user", content="a different direction"))
        fork.close()
    finally:
        holder.communicate("", timeout=PATIENCE)

    assert fork.id != store.id
    assert messages == loaded.messages
    forked = load_session(find_session(workspace, fork.id))
    assert forked.messages == [
        *loaded.messages, Message(role="user", content="a different direction"),
    ]
    assert forked.usage == Usage(input_tokens=100, output_tokens=7)
    header = json.loads(fork.path.read_text().splitlines()[0])
    assert header["forked_from"] == store.id
    original = load_session(find_session(workspace, store.id)).messages
    assert original[-1].content == "done: still running there"  # untouched by the fork
    assert {info.id for info in list_sessions(workspace)} == {store.id, fork.id}
