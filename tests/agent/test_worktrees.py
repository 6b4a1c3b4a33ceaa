"""``neocode --worktree``: a session in a new git worktree of the project, on its own branch,
removed when nothing changed in it and kept (and said where) when something did; real git,
real folders, the real ``neocode`` command."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocode_tui.agent.worktrees import make_worktree
from neocode_tui.trust import trust, untrusted_reason
from tests.support.dialects import Dialect
from tests.support.git_repo import committed_repository, git
from tests.support.headless import neocode


@pytest.fixture
def project(workspace: Path) -> Path:
    return committed_repository(workspace)


async def test_a_changed_worktree_is_kept_on_its_branch_and_the_project_is_untouched(
    openai_only: Dialect, project: Path
) -> None:
    openai_only.reply("", [("w1", "write_file", '{"path": "notes.txt", "content": "from the worktree\\n"}')])
    openai_only.reply("Written.")
    result = await neocode(openai_only, project, "--worktree", "feature", "-p", "write notes",
                           "--approval", "auto-edit")

    tree = project / ".neocode" / "worktrees" / "feature"
    assert result.code == 0, result.err
    assert (tree / "notes.txt").read_text() == "from the worktree\n"
    assert not (project / "notes.txt").exists()
    assert f"worktree kept at {tree} on branch worktree-feature: 1 file not committed" in result.err
    assert git(tree, "rev-parse", "--abbrev-ref", "HEAD").strip() == "worktree-feature"
    assert git(project, "status", "--porcelain") == "", "the worktrees stay out of the project's status"


async def test_an_unchanged_worktree_and_its_branch_are_removed(openai_only: Dialect, project: Path) -> None:
    openai_only.reply("Hello.")
    result = await neocode(openai_only, project, "-w", "-p", "say hello")

    assert result.code == 0 and result.out == "Hello.\n"
    [made] = [line for line in result.err.splitlines() if "working in worktree" in line]
    name = made.split("working in worktree ")[1].split(" ")[0]
    assert len(name.split("-")) == 3, "a made-up name like bright-running-fox"
    assert f"neocode: worktree {name} removed: nothing changed in it" in result.err
    assert not (project / ".neocode" / "worktrees" / name).exists()
    assert git(project, "branch", "--list", f"worktree-{name}") == ""
    assert "worktree" not in git(project, "worktree", "list").split("\n", 1)[-1]


async def test_slash_worktree_says_where_the_session_works(openai_only: Dialect, project: Path) -> None:
    inside = await neocode(openai_only, project, "-w", "look", "-p", "/worktree")
    outside = await neocode(openai_only, project, "-p", "/worktree")

    tree = project / ".neocode" / "worktrees" / "look"
    assert inside.code == 0
    assert inside.out.splitlines()[:3] == [
        f"worktree look at {tree}", f"  branch worktree-look, made from {project}", "  nothing changed yet"]
    assert outside.out.startswith("this session works in the project folder itself, not in a worktree")
    assert openai_only.server.requests == []


async def test_no_repository_or_a_taken_name_is_a_clear_refusal(openai_only: Dialect, workspace: Path,
                                                                 project: Path) -> None:
    plain = workspace.parent / "plain"
    plain.mkdir()
    (project / ".neocode" / "worktrees" / "taken").mkdir(parents=True)

    no_repository = await neocode(openai_only, plain, "-w", "x", "-p", "hi")
    taken = await neocode(openai_only, project, "-w", "taken", "-p", "hi")
    bad_name = await neocode(openai_only, project, "-w", "../out", "-p", "hi")

    assert no_repository.code == 2 and "a worktree needs a git repository" in no_repository.err
    assert taken.code == 2 and "the worktree taken already exists" in taken.err
    assert bad_name.code == 2 and "'../out' is not a worktree name" in bad_name.err
    assert "Traceback" not in no_repository.err + taken.err + bad_name.err
    assert openai_only.server.requests == []


async def test_making_a_worktree_runs_none_of_the_repositorys_hooks(project: Path) -> None:
    marker = project.parent / "hook-ran"
    hook = project / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)

    tree = await make_worktree(project, "quiet")

    assert (tree.path / "app.py").exists()
    assert not marker.exists()


async def test_a_worktree_of_a_trusted_folder_is_trusted_the_same(project: Path) -> None:
    (project / ".env").write_text("NEOCODE_MODEL=trusted-model\n")
    git(project, "add", ".env")
    git(project, "commit", "-qm", "env")
    trust(project)

    tree = await make_worktree(project, "trusted")

    assert untrusted_reason(tree.path, ".env", (tree.path / ".env").read_bytes()) == ""
    changed = b"NEOCODE_BASE_URL=http://elsewhere.example\n"
    assert untrusted_reason(tree.path, ".env", changed) == ".env is new or changed since you trusted this folder"
