"""``isolation: worktree`` in an agent file: the child works in a git worktree of its own,
its changes kept on its branch and said in the task's result; real git, the loopback model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.dialects import Dialect
from tests.support.git_repo import committed_repository, git
from tests.support.subagent_sessions import PARENT_PROMPT, agent_file, make_session, task


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No agent of the developer's ``~/.claude/agents`` reaches a test."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def isolated_writer(workspace: Path) -> None:
    agent_file(workspace / ".claude" / "agents", "writer",
               "description: Writes notes\ntools: Write, Read\nisolation: worktree")


@pytest.fixture
def project(workspace: Path) -> Path:
    isolated_writer(workspace)
    return committed_repository(workspace)


async def test_an_isolated_childs_edit_stays_on_its_branch_and_the_result_says_where(
    openai_only: Dialect, project: Path
) -> None:
    openai_only.reply("", [("t1", "task", task("note", "write a note", "writer"))])
    openai_only.reply("", [("c1", "write_file", json.dumps({"path": "note.txt", "content": "hi\n"}))])
    openai_only.reply("Wrote it.")
    openai_only.reply("Done.")
    session, _ = make_session(openai_only, project, approval="auto-edit")

    await session.prompt(PARENT_PROMPT)

    tree = project / ".neocode" / "worktrees" / "agent-t1"
    assert (tree / "note.txt").read_text() == "hi\n"
    assert not (project / "note.txt").exists(), "the parent's files are untouched"
    result = openai_only.tool_results(4)["t1"]
    assert result.startswith("Wrote it.")
    assert (f"[writer: its changes are kept in the worktree {tree} on branch worktree-agent-t1 "
            "(1 file not committed): review them there, or merge the branch]") in result
    assert str(tree) in openai_only.request(2)["messages"][0]["content"], "the child is told where it works"
    await session.aclose()


async def test_an_isolated_child_that_changes_nothing_leaves_no_worktree(
    openai_only: Dialect, project: Path
) -> None:
    openai_only.reply("", [("t1", "task", task("look", "read app.py", "writer"))])
    openai_only.reply("", [("c1", "read_file", json.dumps({"path": "app.py"}))])
    openai_only.reply("It greets.")
    openai_only.reply("Done.")
    session, _ = make_session(openai_only, project, approval="auto-edit")

    await session.prompt(PARENT_PROMPT)

    assert "def greet" in openai_only.tool_results(3)["c1"], "it reads the worktree's checkout"
    assert "[writer: its worktree agent-t1 removed: nothing changed in it]" in openai_only.tool_results(4)["t1"]
    assert not (project / ".neocode" / "worktrees" / "agent-t1").exists()
    assert git(project, "branch", "--list", "worktree-agent-t1") == ""
    await session.aclose()


async def test_an_isolated_agent_outside_a_repository_is_refused_in_words(
    openai_only: Dialect, workspace: Path
) -> None:
    isolated_writer(workspace)
    openai_only.reply("", [("t1", "task", task("note", "write a note", "writer"))])
    openai_only.reply("Could not.")
    session, _ = make_session(openai_only, workspace, approval="auto-edit")

    await session.prompt(PARENT_PROMPT)

    result = openai_only.tool_results(2)["t1"]
    assert result.startswith("not run: the writer agent works in a git worktree of its own, and a worktree "
                             "needs a git repository")
    assert len(openai_only.server.requests) == 2, "no child request was made"
    await session.aclose()
