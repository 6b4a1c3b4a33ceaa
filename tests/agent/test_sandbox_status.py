"""The app's status bar tells when commands are not in the usual sandbox."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from tests.support.reading import screen_text
from tests.support.waits import started


def status_line(app: NeoCodeApp) -> str:
    return screen_text(app).rstrip("\n").splitlines()[-1]


async def app_status(workspace: Path, **settings: object) -> str:
    app = NeoCodeApp(Settings(provider="scripted", **settings), workspace=workspace,
                     remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)  # the session's own sandbox in the status bar
        return status_line(app)


async def test_the_usual_sandbox_takes_no_room(workspace: Path) -> None:
    line = await app_status(workspace)
    assert "approval: ask" in line and "sandbox" not in line


async def test_other_modes_show(workspace: Path) -> None:
    assert "approval: ask  │  sandbox off  │" in await app_status(workspace, sandbox="off")
    read_only = await app_status(workspace, sandbox="read-only", sandbox_network=True)
    assert "│  sandbox: read-only + network  │" in read_only


async def test_an_unavailable_sandbox_shows(workspace: Path, no_user_namespaces: None) -> None:
    assert "approval: ask  │  no sandbox  │" in await app_status(workspace)
