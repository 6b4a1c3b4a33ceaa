"""``neocode -w NAME`` in a real terminal (tmux): the app works in the worktree, ``/worktree``
says so, and once it is quit the user is asked whether to keep the changed worktree: Enter
keeps it (the terminal says where, after the way to continue), ``n`` removes it and its
branch. The project's own folder is untouched either way."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from tests.support.dialects import Dialect
from tests.support.git_repo import committed_repository, git
from tests.support.headless import NEOCODE
from tests.support.tmux import Tmux
from tests.support.waits import wait_until


async def shows(tmux: Tmux, *parts: str) -> str:
    screen = ""

    def now() -> bool:
        nonlocal screen
        screen = tmux.scrollback("app") + tmux.screen("app")
        # Lines the app wrapped at 80 columns (a long path) are read as the words they hold.
        words = " ".join(screen.split())
        return all(" ".join(part.split()) in words for part in parts)

    try:
        await wait_until(now, what=f"{parts} in the terminal")
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{screen}") from None
    return screen


def typed(tmux: Tmux, text: str) -> None:
    tmux("send-keys", "-t", "t:app", "-l", text)
    tmux("send-keys", "-t", "t:app", "Enter")


async def worktree_session(tmux: Tmux, openai_only: Dialect, project: Path, size: tuple[int, int]) -> None:
    """The app in worktree ``feature`` of ``project``: /worktree, a file written, /exit."""
    (project / "app.py").write_text("print('hi')\n")
    committed_repository(project)
    openai_only.reply("", [("w1", "write_file", json.dumps({"path": "notes.txt", "content": "mine\n"}))])
    openai_only.reply("Wrote notes.txt.")
    tmux.window("app", f"cd {shlex.quote(str(project))} && {NEOCODE} -w feature --approval full-auto",
                size=size)
    tmux.go("app")
    await shows(tmux, "type a task")
    typed(tmux, "/worktree")
    await shows(tmux, "worktree feature at", "branch worktree-feature")
    typed(tmux, "write notes")
    await shows(tmux, "Wrote notes.txt.")
    typed(tmux, "/exit")
    await shows(tmux, "continue it with: neocode --continue",
                "neocode: the worktree holds 1 file not committed. Keep it? [Y/n]")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_a_changed_worktree_is_kept_on_enter_and_the_terminal_says_where(
    size: tuple[int, int], openai_only: Dialect, tmp_path: Path, tmux: Tmux
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    await worktree_session(tmux, openai_only, project, size)
    tmux("send-keys", "-t", "t:app", "Enter")
    left = await shows(tmux, "neocode: worktree kept at")

    kept = left[left.index("neocode: worktree kept at"):]
    assert "on branch worktree-feature: 1 file not committed" in " ".join(kept.split())
    assert left.index("continue it with") < left.index("Keep it?") < left.index("neocode: worktree kept at")
    assert (project / ".neocode" / "worktrees" / "feature" / "notes.txt").read_text() == "mine\n"
    assert not (project / "notes.txt").exists()
    assert git(project, "status", "--porcelain") == ""


async def test_a_changed_worktree_is_removed_with_its_branch_when_the_user_says_no(
    openai_only: Dialect, tmp_path: Path, tmux: Tmux
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    await worktree_session(tmux, openai_only, project, (80, 24))
    typed(tmux, "n")
    await shows(tmux, "neocode: worktree feature and its branch removed, with what they held: "
                      "1 file not committed")

    assert not (project / ".neocode" / "worktrees" / "feature").exists()
    assert git(project, "branch", "--list", "worktree-feature") == ""
    assert not (project / "notes.txt").exists()
    assert git(project, "status", "--porcelain") == ""
