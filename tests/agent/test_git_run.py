"""NeoCode's own git (``git_run``) runs nothing the repository names, even when what the
sandbox keeps read-only was changed another way (a command run outside it, another tool):
real git, real repositories, a program that would leave a line outside the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocode_tui.agent.restore import git_state
from neocode_tui.agent.restore.git_run import find_repository
from tests.support.git_repo import committed_repository, git


@pytest.fixture
def program(tmp_path: Path) -> Path:
    """A program that notes each run in ``ran`` beside it (outside the workspace)."""
    path = tmp_path / "outside" / "program.sh"
    path.parent.mkdir()
    path.write_text(f'#!/bin/sh\necho "$0 $*" >> {path.parent / "ran"}\ncat\n')
    path.chmod(0o755)
    return path


@pytest.fixture
def repo(workspace: Path) -> Path:
    committed_repository(workspace)
    (workspace / "app.py").write_text("def greet():\n    return 'hi'\n")
    return workspace


def plant_config(repo: Path, program: Path) -> None:
    for key in ("core.fsmonitor", "core.pager", "diff.external", "diff.x.textconv",
                "diff.x.command"):
        git(repo, "config", key, str(program))
    git(repo, "config", "core.hooksPath", str(program.parent))
    (program.parent / "post-index-change").symlink_to(program)
    (repo / ".gitattributes").write_text("* diff=x\n")


def plant_commondir(repo: Path, program: Path) -> None:
    planted = repo.parent / "planted"
    git(repo.parent, "init", "-q", "--bare", str(planted))
    git(planted, "config", "core.fsmonitor", str(program))
    (repo / ".git" / "commondir").write_text(f"{planted}\n")


def plant_environment(repo: Path, program: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_SSH_COMMAND"):
        monkeypatch.setenv(name, str(program))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor'='{program}'")


@pytest.mark.parametrize("route", ["config", "commondir", "environment"])
async def test_neocode_git_runs_nothing_the_repository_names(
    repo: Path, program: Path, route: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    repository = await find_repository(repo)
    if route == "config":
        plant_config(repo, program)
    elif route == "commondir":
        plant_commondir(repo, program)
    else:
        plant_environment(repo, program, monkeypatch)

    status = await git_state.status_short(repository, repo)
    diff = await git_state.working_diff(repository, repo)

    assert not (program.parent / "ran").exists(), (program.parent / "ran").read_text()
    assert status is not None and diff is not None
    if route != "commondir":  # git takes refs from a commondir file whatever it is told
        assert " M app.py" in status and "+    return 'hi'" in diff


async def test_the_repository_is_the_one_found_at_the_start(repo: Path, program: Path) -> None:
    repository = await find_repository(repo)
    planted = repo.parent / "planted"
    git(repo.parent, "init", "-q", str(planted))
    git(planted, "config", "core.fsmonitor", str(program))
    (repo / ".git").rename(repo.parent / "moved.git")
    (repo / ".git").write_text(f"gitdir: {planted / '.git'}\n")
    (repo.parent / "moved.git").rename(repo / ".git.real")

    status = await git_state.status_short(repository, repo)

    assert status is None  # the pinned folder is gone: no answer rather than another's
    assert not (program.parent / "ran").exists()


async def test_no_repository_at_the_start_stays_none(workspace: Path, program: Path) -> None:
    repository = await find_repository(workspace)
    git(workspace, "init", "-q")
    git(workspace, "config", "core.fsmonitor", str(program))

    assert repository is None
    assert await git_state.status_short(repository, workspace) is None
    assert await git_state.working_diff(repository, workspace) is None
    assert not (program.parent / "ran").exists()


async def test_a_bare_repository_in_the_tree_is_never_found(workspace: Path, program: Path) -> None:
    git(workspace, "init", "-q", "--bare", ".")
    git(workspace, "config", "core.bare", "false")
    git(workspace, "config", "core.worktree", str(workspace))
    git(workspace, "config", "core.fsmonitor", str(program))

    assert await find_repository(workspace) is None
