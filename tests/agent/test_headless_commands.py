"""Built-in slash commands in ``neocode -p``: answered by the core, without the model."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.dialects import Dialect
from tests.support.headless import neocode, session_files


async def test_cost_of_a_continued_session_is_printed_without_a_request(
    dialect: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    dialect.reply("Hello.")
    await neocode(dialect, workspace, "-p", "say hello")
    fresh = await neocode(dialect, workspace, "-p", "/cost")
    continued = await neocode(dialect, workspace, "-p", "/cost", "--continue")
    as_json = await neocode(dialect, workspace, "-p", "/context", "--continue", "--output-format", "json")

    assert (fresh.code, fresh.out) == (0, "cost: no requests yet in this session\n")
    assert continued.code == 0 and "before this session was resumed" in continued.out
    answer = json.loads(as_json.out)
    assert answer["command"] == "context" and answer["level"] == "info"
    assert answer["result"].startswith("context: ") and answer["session_id"]
    assert len(dialect.server.requests) == 1, "only the prompt reached the model"
    assert len(session_files(isolated_dirs / "data")) == 1, "a command alone leaves no session behind"


async def test_undo_asks_nobody_unless_full_auto(dialect: Dialect, workspace: Path, isolated_dirs: Path) -> None:
    (workspace / "notes.txt").write_text("before\n")
    dialect.reply("", [("w1", "write_file", '{"path": "notes.txt", "content": "after\\n"}')])
    dialect.reply("Done.")
    await neocode(dialect, workspace, "-p", "change the notes", "--approval", "auto-edit")
    assert (workspace / "notes.txt").read_text() == "after\n"

    refused = await neocode(dialect, workspace, "-p", "/undo", "--continue")
    assert (workspace / "notes.txt").read_text() == "after\n"
    undone = await neocode(dialect, workspace, "-p", "/undo", "--continue", "--approval", "full-auto")

    assert refused.code == 1 and "-after" in refused.out and "Not done" in refused.out
    assert (undone.code, undone.out) == (0, "undone: notes.txt\n")
    assert (workspace / "notes.txt").read_text() == "before\n"


async def test_a_bad_argument_is_a_warning_and_exit_code_1(
    dialect: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    result = await neocode(dialect, workspace, "-p", "/approval sometimes", "--output-format", "stream-json")
    lines = [json.loads(line) for line in result.out.splitlines()]

    assert result.code == 1
    assert lines[0]["type"] == "session"
    assert lines[-1] == {"type": "command_result", "command": "approval", "level": "warning",
                         "result": "approval is ask; choose one of: ask, auto-edit, full-auto, plan",
                         "choices": [], "session_id": None}
    assert dialect.server.requests == []


async def test_rename_a_continued_session_and_neocode_sessions_lists_it_so(
    dialect: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    dialect.reply("Hello.")
    dialect.reply("Hello again.")
    await neocode(dialect, workspace, "-p", "say hello")
    await neocode(dialect, workspace, "-p", "and once more\nwith feeling")
    files = session_files(isolated_dirs / "data")  # two ids from one second sort either way
    [first] = [path for path in files if "say hello" in path.read_text()]
    [second] = [path for path in files if path != first]
    shown = await neocode(dialect, workspace, "-p", "/rename", "--resume", first.stem)
    renamed = await neocode(dialect, workspace, "-p", "/rename Greetings", "--resume", first.stem)
    listing = await neocode(dialect, workspace, "sessions")

    assert (shown.code, shown.out) == (0, 'this session is "say hello"; /rename NEW TITLE renames it\n')
    assert (renamed.code, renamed.out) == (0, 'renamed this session "Greetings"\n')
    lines = listing.out.splitlines()
    assert listing.code == 0 and lines[0].startswith(f"{first.stem}  ") and lines[0].endswith("  Greetings")
    assert lines[1] == "    › say hello"  # its latest prompt, under the new name
    assert lines[2].startswith(f"{second.stem}  ") and lines[2].endswith("  and once more")
    assert lines[3:] == ["", "resume one with: neocode --resume ID   (or the latest with --continue)"]
    assert len(dialect.server.requests) == 2, "only the prompts reached the model"
