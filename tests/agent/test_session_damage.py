"""Session files that are damaged, misplaced or cannot be written: the run goes on, the user is
told once, and what is resumed is always a transcript a model server accepts."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from neocode_tui.agent.loop import AgentLoop
from neocode_tui.agent.store.session_store import (
    MAX_RECORD,
    SessionNotFound,
    SessionStore,
    find_session,
    list_sessions,
    load_session,
    sessions_dir,
)
from neocode_tui.agent.transcript import NO_RESULT
from neocode_tui.chat import Message, ToolCall
from tests.support.dialects import Dialect
from tests.support.transcripts import assert_valid
from tests.support.waits import PATIENCE

ROOT = Path(__file__).parent.parent.parent
PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 24, 1, 2


def saved_session(workspace: Path) -> SessionStore:
    """A session as the loop writes it: a prompt, two answered calls, a reply."""
    store = SessionStore.create(workspace, provider="openai", model="m")
    store.append_message(Message(role="user", content="fix the build"))
    store.append_message(Message(role="assistant", content="Looking.", tool_calls=[
        ToolCall(id="c1", name="bash", arguments='{"command": "make"}'),
        ToolCall(id="c2", name="read_file", arguments='{"path": "Makefile"}'),
    ]))
    store.append_message(Message(role="tool", content="error 2", tool_call_id="c1", name="bash"))
    store.append_message(Message(role="tool", content="all:", tool_call_id="c2", name="read_file"))
    store.append_message(Message(role="assistant", content="The Makefile has no rule."))
    store.close()
    return store


def test_a_folder_or_pipe_named_like_a_session_is_not_one(tmp_path: Path) -> None:
    store = saved_session(tmp_path)
    (sessions_dir() / "20990101-000000-aaaaaa.jsonl").mkdir()
    os.mkfifo(sessions_dir() / "20990101-000000-bbbbbb.jsonl")  # reading it would wait forever

    assert [info.id for info in list_sessions(tmp_path)] == [store.id]
    assert find_session(tmp_path, None).id == store.id
    with pytest.raises(SessionNotFound, match="no saved session with id '20990101-000000-aaaaaa'"):
        find_session(tmp_path, "20990101-000000-aaaaaa")
    assert find_session(tmp_path, "2").id == store.id  # the prefix matches one real session

    listing = subprocess.run([sys.executable, "-m", "neocode_tui", "sessions"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=PATIENCE)
    assert listing.returncode == 0 and listing.stderr == ""
    assert listing.stdout.startswith(f"{store.id}  ")


def test_damage_in_the_middle_is_skipped_named_and_repaired(tmp_path: Path) -> None:
    store = saved_session(tmp_path)
    lines = store.path.read_text(encoding="utf-8").splitlines(keepends=True)
    damaged = [
        lines[0],                                                    # 1 header
        lines[1],                                                    # 2 user
        lines[2][:40] + "\n",                                        # 3 assistant, truncated
        "\x00\x00garbage \xff{{{\n",                                 # 4 garbage
        lines[3],                                                    # 5 result of c1
        '{"type": "message", "message": 5}\n',                       # 6 wrong shape
        '[1, 2, 3]\n',                                               # 7 not a record
        '{"type": "message", "message": {"role": "tool", "content": ["x"], '
        '"tool_call_id": 7}}\n',                                     # 8 wrong types
        "[" * 100_000 + "\n",                                        # 9 nested too deep
        '{"type": "message", "message": {"content": "' + "y" * MAX_RECORD + '"}}\n',  # 10 huge
        lines[4],                                                    # 11 result of c2
        lines[5],                                                    # 12 reply
        '{"type": "usage", "usage": {"input_tokens": "many"}}\n',   # 13 wrong types
    ]
    store.path.write_text("".join(damaged), encoding="utf-8")

    loaded = load_session(find_session(tmp_path, store.id))

    assert [(m.role, m.content) for m in loaded.messages] == [
        ("user", "fix the build"), ("assistant", "The Makefile has no rule."),
    ]  # the call message was lost, so its two results went with it
    assert_valid(loaded.messages)
    assert loaded.problems == [
        f"8 unreadable line(s) of {store.path.name} were skipped (line 3, 4, 6, 7, 8…)",
        "2 tool result(s) without their call were dropped",
    ]


def test_a_lost_result_mid_file_is_marked_where_it_belongs(tmp_path: Path) -> None:
    store = saved_session(tmp_path)
    lines = store.path.read_text(encoding="utf-8").splitlines(keepends=True)
    del lines[3]  # the result of c1
    store.path.write_text("".join(lines), encoding="utf-8")

    loaded = load_session(find_session(tmp_path, store.id))

    assert [(m.role, m.tool_call_id, m.content) for m in loaded.messages[2:4]] == [
        ("tool", "c1", NO_RESULT), ("tool", "c2", "all:"),
    ]
    assert loaded.problems == ["1 tool call(s) had no saved result and are marked interrupted"]


async def test_a_damaged_session_resumes_into_a_request_the_server_accepts(
    openai_only: Dialect, workspace: Path
) -> None:
    store = saved_session(workspace)
    with store.path.open("a", encoding="utf-8") as handle:  # an unanswered call, then a stray
        handle.write(json.dumps({"type": "message", "message": {
            "role": "assistant", "tool_calls": [{"id": "c3", "name": "bash", "arguments": "{}"}]}})
            + "\n")
        handle.write('{"type": "message", "message": {"role": "tool", "content": "late", '
                     '"tool_call_id": "c1"}}\n{"type": "mess')
    openai_only.reply("Resumed.")
    resumed, session = SessionStore.resume(find_session(workspace, store.id))
    loop = AgentLoop(openai_only.provider(), workspace, approval="full-auto", session=resumed,
                     messages=session.messages)

    await loop.run("go on")
    resumed.close()

    sent = openai_only.request(1)["messages"]
    roles = [(m["role"], m.get("tool_call_id")) for m in sent[1:]]  # after the system prompt
    assert roles == [
        ("user", None), ("assistant", None), ("tool", "c1"), ("tool", "c2"), ("assistant", None),
        ("assistant", None), ("tool", "c3"), ("user", None),
    ]
    assert sent[-2]["content"] == NO_RESULT
    assert load_session(find_session(workspace, store.id)).messages == loop.messages


def test_a_name_that_is_not_utf8_is_saved_and_read_back(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path, provider="openai", model="m")
    listing = os.fsdecode(b"caf\xe9.txt")  # what os.listdir gives for a Latin-1 name
    store.append_message(Message(role="user", content=listing))
    store.close()
    assert store.problem is None
    assert load_session(find_session(tmp_path, store.id)).messages[0].content == listing


def without_override() -> None:
    """Root writes anything: drop the capabilities that let it, before the child runs."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        assert libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) == 0


def run_without_write_rights(script: str, data: Path) -> subprocess.CompletedProcess[str]:
    """``script`` in a fresh Python whose data folder is ``data``, unable to override
    file permissions."""
    env = {**os.environ, "NEOCODE_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, cwd=data.parent, timeout=PATIENCE,
                          preexec_fn=without_override if os.geteuid() == 0 else None)


STORE_SCRIPT = """
import sys
from pathlib import Path
from neocode_tui.agent.store.session_store import SessionStore
from neocode_tui.chat import Message
store = SessionStore.create(Path.cwd(), provider="openai", model="m",
                            on_problem=lambda text: print("PROBLEM", text, file=sys.stderr))
for number in range(200):
    store.append_message(Message(role="user", content=f"message {number} " + "x" * 100))
store.close()
print(store.id, store.saving)
"""


def test_a_read_only_data_folder_means_not_saving_said_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "sessions").mkdir(parents=True)
    os.chmod(data / "sessions", 0o555)

    result = run_without_write_rights(STORE_SCRIPT, data)

    assert result.returncode == 0
    session_id, saving = result.stdout.split()
    assert saving == "False"
    path = data / "sessions" / f"{session_id}.jsonl"
    assert result.stderr == (f"PROBLEM session {session_id} is not being saved: {path}: "
                             "Permission denied; the conversation goes on, unsaved from here\n")
    assert list((data / "sessions").iterdir()) == []


def test_a_full_disk_mid_session_stops_saving_said_once(tmp_path: Path) -> None:
    limit = "import resource; resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
    env = {**os.environ, "NEOCODE_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", limit + STORE_SCRIPT], capture_output=True,
                            text=True, env=env, cwd=tmp_path, timeout=PATIENCE)

    assert result.returncode == 0
    session_id, saving = result.stdout.split()
    assert saving == "False"
    assert result.stderr.count("PROBLEM") == 1
    assert result.stderr.endswith(": File too large; the conversation goes on, unsaved from here\n")
    [saved] = (tmp_path / "data" / "sessions").iterdir()
    assert saved.stat().st_size == 4096
    loaded = load_session(find_session(tmp_path, session_id))  # what fit is still there
    assert loaded.messages[0].content.startswith("message 0 ")
    assert loaded.problems == [f"1 unreadable line(s) of {saved.name} were skipped (line "
                               f"{len(loaded.messages) + 2})"]


def test_a_read_only_session_file_resumes_without_saving(tmp_path: Path) -> None:
    store = saved_session(tmp_path)
    os.chmod(store.path, 0o444)
    script = f"""
import sys
from pathlib import Path
from neocode_tui.agent.store.session_store import SessionStore, find_session, load_session
from neocode_tui.chat import Message
resumed, session = SessionStore.resume(
    find_session(Path.cwd(), {store.id!r}), on_problem=lambda text: print("PROBLEM", text, file=sys.stderr))
resumed.append_message(Message(role="user", content="not kept"))
print(len(session.messages), resumed.saving)
"""
    result = run_without_write_rights(script, tmp_path / "data")

    assert result.stdout.split() == ["5", "False"]
    assert result.stderr == (f"PROBLEM session {store.id} is not being saved: {store.path}: "
                             "Permission denied; the conversation goes on, unsaved from here\n")
    assert "not kept" not in store.path.read_text()
