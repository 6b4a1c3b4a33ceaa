"""Taking back what the agent did: /undo, /rewind and /diff in the session core, against
the loopback model, on real files and real git repositories in temporary folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neocode_tui.agent.loop_events import TranscriptReplaced
from neocode_tui.agent.restore.restorer import RewindError
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.agent.store.session_store import find_session, load_session
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.git_repo import git
from tests.support.recorder import Recorder


def session_in(dialect: Dialect, workspace: Path) -> tuple[AgentSession, Recorder]:
    recorder = Recorder()
    session = AgentSession(
        Settings(provider=dialect.name, approval="full-auto"), workspace, FrontEnd(listener=recorder),
        provider=dialect.provider(),
    )
    return session, recorder


def write(call_id: str, path: str, content: str) -> tuple[str, str, str]:
    return (call_id, "write_file", json.dumps({"path": path, "content": content}))


def edit(call_id: str, path: str, old: str, new: str) -> tuple[str, str, str]:
    return (call_id, "edit_file", json.dumps({"path": path, "old_string": old, "new_string": new}))


async def test_undo_puts_back_the_files_the_last_prompt_changed(
    openai_only: Dialect, workspace: Path
) -> None:
    (workspace / "app.py").write_text("print('one')\n")
    openai_only.reply(calls=[edit("e1", "app.py", "one", "two"), write("w1", "new.txt", "fresh\n")])
    openai_only.reply("Done.")
    session, _ = session_in(openai_only, workspace)
    await session.prompt("change things")
    assert (workspace / "app.py").read_text() == "print('two')\n"

    preview = await session.restore.undo_preview()
    assert preview is not None and preview.checkpoint.prompt == "change things"
    assert "-print('two')" in preview.diff and "+print('one')" in preview.diff
    assert "-fresh" in preview.diff  # the new file goes away
    assert preview.git_status is None  # not a repository
    restored = await session.restore.undo(preview)

    assert sorted(restored.paths) == ["app.py", "new.txt"] and restored.refused == []
    assert (workspace / "app.py").read_text() == "print('one')\n"
    assert not (workspace / "new.txt").exists()
    assert await session.restore.undo_preview() is None  # nothing more to undo

    openai_only.reply("Understood.")
    await session.prompt("next")
    sent = openai_only.request(3)["messages"][-1]["content"]
    assert sent.startswith("[The user undid the file changes") and sent.endswith("next")
    await session.aclose()


async def test_undo_keeps_the_saved_content_in_the_data_folder(
    openai_only: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    (workspace / "notes.md").write_bytes(b"caf\xe9 latin-1\r\n")
    openai_only.reply(calls=[write("w1", "notes.md", "replaced\n")])
    openai_only.reply("Done.")
    session, _ = session_in(openai_only, workspace)
    await session.prompt("rewrite the notes")

    blobs = list((isolated_dirs / "data" / "checkpoints" / session.id / "blobs").iterdir())
    assert [blob.read_bytes() for blob in blobs] == [b"caf\xe9 latin-1\r\n"]
    preview = await session.restore.undo_preview()
    assert preview is not None
    await session.restore.undo(preview)
    assert (workspace / "notes.md").read_bytes() == b"caf\xe9 latin-1\r\n"  # byte for byte
    await session.aclose()


async def test_a_resumed_session_can_still_undo(openai_only: Dialect, workspace: Path) -> None:
    (workspace / "a.txt").write_text("before\n")
    openai_only.reply(calls=[write("w1", "a.txt", "after\n")])
    openai_only.reply("Done.")
    first, _ = session_in(openai_only, workspace)
    await first.prompt("change a")
    saved_id = first.id
    await first.aclose()

    second, _ = session_in(openai_only, workspace)
    second.resume(saved_id)
    preview = await second.restore.undo_preview()
    assert preview is not None
    await second.restore.undo(preview)
    assert (workspace / "a.txt").read_text() == "before\n"
    await second.aclose()


async def test_rewind_restores_the_conversation_and_optionally_the_files(
    openai_only: Dialect, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("v0\n")
    for version in ("v1", "v2"):
        openai_only.reply(calls=[write(f"w{version}", "a.txt", f"{version}\n")])
        openai_only.reply(f"wrote {version}")
    session, recorder = session_in(openai_only, workspace)
    await session.prompt("first")
    await session.prompt("second")
    old_id = session.id

    points = session.restore.rewind_points()
    assert [point.prompt for point in points] == ["first", "second"]
    preview = await session.restore.rewind_preview(points[1].number)
    assert "-v2" in preview.diff and "+v1" in preview.diff
    prompt, result = await session.rewind(preview, files=False)

    assert prompt == "second" and result.paths == []
    assert [m.content for m in session.messages if m.role == "user"] == ["first"]
    assert (workspace / "a.txt").read_text() == "v2\n"  # files left as they are
    assert recorder.of(TranscriptReplaced)[-1].messages == session.messages
    # The old session file stays whole; the rewound conversation goes on in a new one.
    assert session.id != old_id
    assert len(load_session(find_session(workspace, old_id)).messages) == 8
    assert [m.content for m in load_session(find_session(workspace, session.id)).messages][0] == "first"

    preview = await session.restore.rewind_preview(session.restore.rewind_points()[0].number)
    await session.rewind(preview, files=True)
    assert session.messages == []
    assert (workspace / "a.txt").read_text() == "v0\n"  # before "first" touched it
    assert session.restore.rewind_points() == []
    with pytest.raises(RewindError):
        await session.restore.rewind_preview(1)
    await session.aclose()


async def test_commands_are_counted_as_not_tracked(openai_only: Dialect, workspace: Path) -> None:
    openai_only.reply(calls=[
        ("b1", "bash", json.dumps({"command": "echo made > by_bash.txt"})),
        write("w1", "by_tool.txt", "tool\n"),
    ])
    openai_only.reply("Done.")
    session, _ = session_in(openai_only, workspace)
    await session.prompt("make files")

    preview = await session.restore.undo_preview()
    assert preview is not None and preview.commands == 1
    await session.restore.undo(preview)
    assert not (workspace / "by_tool.txt").exists()
    assert (workspace / "by_bash.txt").read_text() == "made\n"  # bash's change stays
    await session.aclose()


async def test_in_a_git_repository_undo_shows_git_status_and_diff_is_git_diff(
    openai_only: Dialect, workspace: Path
) -> None:
    git(workspace, "init", "-q")
    (workspace / "tracked.py").write_text("x = 1\n")
    git(workspace, "add", ".")
    git(workspace, "commit", "-qm", "start")
    openai_only.reply(calls=[
        edit("e1", "tracked.py", "x = 1", "x = 2"),
        ("b1", "bash", json.dumps({"command": "echo hi > untracked.txt"})),
    ])
    openai_only.reply("Done.")
    session, _ = session_in(openai_only, workspace)
    await session.prompt("edit and run")

    preview = await session.restore.undo_preview()
    assert preview is not None
    assert preview.git_status is not None
    assert " M tracked.py" in preview.git_status and "?? untracked.txt" in preview.git_status
    diff = await session.restore.diff()
    assert diff.source == "git"
    assert "-x = 1" in diff.text and "+x = 2" in diff.text
    assert "+hi" in diff.text  # a new file a command made shows whole
    await session.aclose()


async def test_diff_outside_git_shows_every_change_of_the_session(
    openai_only: Dialect, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("one\n")
    openai_only.reply(calls=[write("w1", "a.txt", "two\n")])
    openai_only.reply("ok")
    openai_only.reply(calls=[write("w2", "a.txt", "three\n"), write("w3", "b.txt", "new\n")])
    openai_only.reply("ok")
    session, _ = session_in(openai_only, workspace)
    await session.prompt("first")
    await session.prompt("second")

    diff = await session.restore.diff()
    assert diff.source == "checkpoints"
    assert "--- a/a.txt" in diff.text and "-one" in diff.text and "+three" in diff.text
    assert "-two" not in diff.text  # from before the session, not from the last prompt
    assert "--- /dev/null" in diff.text and "+new" in diff.text
    await session.aclose()


async def test_nothing_to_undo_before_any_change(openai_only: Dialect, workspace: Path) -> None:
    openai_only.reply("Just talking.")
    session, _ = session_in(openai_only, workspace)
    assert await session.restore.undo_preview() is None
    await session.prompt("hello")
    assert await session.restore.undo_preview() is None
    assert (await session.restore.diff()).text == ""
    await session.aclose()


async def test_an_unsaved_conversation_leaves_no_checkpoints_behind(
    openai_only: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    openai_only.reply(calls=[write("w1", "a.txt", "x\n")])
    openai_only.reply("ok")
    session = AgentSession(
        Settings(provider="openai", approval="full-auto"), workspace,
        provider=openai_only.provider(), save=False,
    )
    await session.prompt("write a")
    folder = isolated_dirs / "data" / "checkpoints"
    assert [path.name[:8] for path in folder.iterdir()] == ["unsaved-"]
    preview = await session.restore.undo_preview()
    assert preview is not None  # undo works in memory-only sessions too
    await session.aclose()
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("swap", ["symlink out", "symlink in", "symlinked folder", "fifo", "folder"])
async def test_undo_leaves_a_file_a_command_replaced_with_a_symlink_fifo_or_folder(
    swap: str, openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    """The prompt wrote sub/app.py and other.txt; then something (a command) put a symlink
    (to a file outside, or inside), a FIFO or a folder where sub/app.py was. Undo restores
    other.txt, leaves that one alone with a reason, and writes nothing anywhere else."""
    import os

    outside = tmp_path / "outside.txt"
    outside.write_text("not yours\n")
    (workspace / "sub").mkdir()
    (workspace / "sub" / "app.py").write_text("v1\n")
    (workspace / "other.txt").write_text("o1\n")
    openai_only.reply(calls=[write("w1", "sub/app.py", "v2\n"), write("w2", "other.txt", "o2\n")])
    openai_only.reply("Done.")
    session, _ = session_in(openai_only, workspace)
    await session.prompt("change both")
    target = workspace / "sub" / "app.py"
    target.unlink()
    if swap == "symlink out":
        target.symlink_to(outside)
    elif swap == "symlink in":
        target.symlink_to(workspace / "other.txt")
    elif swap == "symlinked folder":
        (workspace / "sub").rename(workspace / "gone")
        (tmp_path / "elsewhere").mkdir()
        (workspace / "sub").symlink_to(tmp_path / "elsewhere")
    elif swap == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()

    preview = await session.restore.undo_preview()
    assert preview is not None
    [reason] = preview.refused
    assert reason.startswith("sub/app.py was left as it is: it is now ")
    restored = await session.restore.undo(preview)

    assert restored.paths == ["other.txt"] and restored.refused == [reason]
    assert (workspace / "other.txt").read_text() == "o1\n"
    assert outside.read_text() == "not yours\n"
    if swap == "symlinked folder":
        assert list((tmp_path / "elsewhere").iterdir()) == []
    kinds = {"symlink out": "a symlink", "symlink in": "a symlink", "symlinked folder": "a symlink",
             "fifo": "a FIFO (named pipe)", "folder": "a folder"}
    assert kinds[swap] in reason
    await session.aclose()


async def test_a_file_swapped_for_a_symlink_after_the_preview_is_still_refused(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours\n")
    openai_only.reply(calls=[write("w1", "made.txt", "new\n"), write("w2", "kept.txt", "k\n")])
    openai_only.reply("Done.")
    (workspace / "kept.txt").write_text("k0\n")
    session, _ = session_in(openai_only, workspace)
    await session.prompt("make it")
    preview = await session.restore.undo_preview()
    assert preview is not None and preview.refused == []
    (workspace / "made.txt").unlink()
    (workspace / "made.txt").symlink_to(outside)
    (workspace / "kept.txt").unlink()
    (workspace / "kept.txt").symlink_to(outside)

    restored = await session.restore.undo(preview)

    assert restored.paths == []
    assert [r.split(":")[0] for r in restored.refused] == [
        "kept.txt was left as it is", "made.txt was left as it is"]
    assert outside.read_text() == "not yours\n" and (workspace / "made.txt").is_symlink()
    await session.aclose()
