"""The app shows the core's command table as it is: a command added there is completed,
listed in /help and run, with no code of the app's."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocode_tui.agent.commands import table as commands
from neocode_tui.agent.commands.table import Command, Report
from neocode_tui.providers.scripted import scripted_reply
from neocode_tui.tui.scenarios import SIZE, Driver, Type
from tests.support.apps import scripted_app
from tests.support.reading import screen_text
from tests.support.waits import wait_until


async def _greet(session, argument: str) -> Report:
    return Report(f"hello, {argument or 'nobody'}, from {session.workspace.name}")


async def test_a_command_added_to_the_core_table_is_completed_listed_and_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(commands.COMMANDS, "greet", Command(
        "greet", "say hello from the core", _greet, "NAME", choices=lambda session: ["world"]))
    app = scripted_app(tmp_path, lambda request: scripted_reply("unused"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/gre")
        await wait_until(lambda: "/greet NAME" in screen_text(app), pause=pilot.pause, what="completion")
        await pilot.press("tab", "w")
        await wait_until(lambda: app.prompt.completion.is_open and "world" in screen_text(app),
                         pause=pilot.pause, what="the argument's choice")
        await pilot.press("enter")  # takes the completion, a whole line: it runs
        await wait_until(lambda: "hello, world, from project" in screen_text(app), pause=pilot.pause,
                         what="the command's report")
        await Driver(pilot).play([Type("/help")])
        await wait_until(lambda: "Shift+Tab" in screen_text(app), pause=pilot.pause, what="/help")
        await pilot.press("end")  # the commands follow the keys
        await wait_until(lambda: "say hello from the core" in screen_text(app), pause=pilot.pause,
                         what="the command in /help")
    assert app.provider.inner.requests == [], "the command never reached the model"
