"""``neocode -w NAME`` in a real terminal (tmux): the app works in the worktree, ``/worktree``
says so, and once it is quit the terminal keeps the line saying where the changed worktree was
kept, after the way to continue; the project's own folder is untouched."""

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
        return all(part in screen for part in parts)

    try:
        await wait_until(now, what=f"{parts} in the terminal")
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{screen}") from None
    return screen


def typed(tmux: Tmux, text: str) -> None:
    tmux("send-keys", "-t", "t:app", "-l", text)
    tmux("send-keys", "-t", "t:app", "Enter")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_a_worktree_session_in_a_real_terminal_keeps_its_change_and_says_where(
    size: tuple[int, int], openai_only: Dialect, tmp_path: Path, tmux: Tmux
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("print('hi')\n")
    committed_repository(project)
    tree = project / ".neocode" / "worktrees" / "feature"
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
    left = await shows(tmux, "continue it with: neocode --continue", "neocode: worktree kept at")

    kept = left[left.index("neocode: worktree kept at"):]
    assert "on branch worktree-feature: 1 file not committed" in " ".join(kept.split())
    assert left.index("continue it with") < left.index("neocode: worktree kept at")
    assert (tree / "notes.txt").read_text() == "mine\n"
    assert not (project / "notes.txt").exists()
    assert git(project, "status", "--porcelain") == ""
