"""``/worktree`` in the app, in a worktree NeoCode made of a real repository."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.agent.worktrees import make_worktree
from neocode_tui.providers.scripted import ScriptedProvider
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE, Driver, StepProvider, Type
from tests.support.git_repo import committed_repository
from tests.support.waits import screen_shows


async def test_slash_worktree_shows_the_worktree_its_branch_and_what_changed(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("print('hi')\n")
    committed_repository(project)
    tree = await make_worktree(project, "pilot")
    (tree.path / "app.py").write_text("print('changed')\n")
    app = NeoCodeApp(Settings(provider="scripted"), StepProvider(ScriptedProvider([])), tree.path,
                     remember_theme=False)

    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("/worktree")])
        await screen_shows(app, pilot, "worktree pilot at")
        await screen_shows(app, pilot, "branch worktree-pilot, made from")
        await screen_shows(app, pilot, "1 file not committed")
