"""A resumed session looks as it did: a denied call reads denied and an interrupted one
interrupted, not both "failed"."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.providers.scripted import scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.approval import ApprovalScreen
from neocode_tui.tui.scenarios import SIZE, Driver, Release, Type
from tests.helpers import screen_shows, started, wait_until
from tests.tui.screens import SCREENS
from tests.tui.test_app import scenario_app, scripted_app


async def test_a_denied_call_reads_denied_after_a_resume(tmp_path: Path) -> None:
    app = scenario_app("approval", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play(SCREENS["approval"].steps)
        await wait_until(lambda: isinstance(app.screen, ApprovalScreen), what="the approval dialog")
        await pilot.press("escape")  # no
        await driver.step(Release())
        live = await screen_shows(app, pilot, "⊘ denied")
        assert "✗ failed" not in live

    again = NeoCodeApp(Settings(provider="scripted"), app.provider, app.workspace, resume="",
                       remember_theme=False)
    async with again.run_test(size=SIZE) as pilot:
        await started(again, pilot)
        resumed = await screen_shows(again, pilot, "resumed session", "⊘ denied")
        assert "✗ failed" not in resumed


async def test_an_interrupted_command_reads_interrupted_after_a_resume(tmp_path: Path) -> None:
    command = json.dumps({"command": "printf 'mark%s\\n' er; sleep 600"})
    app = scripted_app(tmp_path, [scripted_reply("", [("bash", command)])], approval="full-auto")
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("wait"), Release()])
        await screen_shows(app, pilot, "marker")  # its output: the command runs
        await pilot.press("escape")
        await screen_shows(app, pilot, "⏹ interrupted")

    again = NeoCodeApp(Settings(provider="scripted"), app.provider, app.workspace, resume="",
                       remember_theme=False)
    async with again.run_test(size=SIZE) as pilot:
        await started(again, pilot)
        resumed = await screen_shows(again, pilot, "resumed session", "⏹ interrupted")
        assert "✗ failed" not in resumed
