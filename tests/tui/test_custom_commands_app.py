"""Custom slash commands in the app, driven with Pilot: typed, completed, listed and run."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from neocode_tui.tui.screens.key_help import KeyHelpScreen
from tests.support.reading import screen_text
from tests.support.waits import screen_shows, wait_until

REVIEW = """\
---
description: Review a file for bugs
argument-hint: FILE
---
Review $ARGUMENTS for bugs.
"""


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def app_with_commands(tmp_path: Path) -> NeoCodeApp:
    workspace = tmp_path / "project"
    commands = workspace / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(REVIEW)
    (commands / "clear.md").write_text("not the built-in")
    provider = ScriptedProvider([scripted_reply("No bugs found."), scripted_reply("Second.")])
    return NeoCodeApp(Settings(provider="scripted"), provider, workspace, remember_theme=False)


async def test_a_custom_command_completes_with_its_description_and_sends_its_prompt(tmp_path: Path) -> None:
    app = app_with_commands(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("/", "r", "e", "v")
        assert app.prompt.completion.is_open
        await screen_shows(app, pilot, "/review FILE  Review a file for bugs (project)")
        await pilot.press("tab")
        assert app.prompt.text == "/review "
        await pilot.press(*"app.py", "enter")
        await screen_shows(app, pilot, "No bugs found.", "/review app.py")  # the line as typed
        assert app.session.messages[0].content == "Review app.py for bugs."

        # The built-in /clear still clears: a workspace file cannot take its name.
        await pilot.press(*"/clear", "enter")
        await wait_until(lambda: not app.session.messages, pause=pilot.pause, what="/clear")


async def test_custom_commands_are_in_help_and_the_palette_and_new_files_show_up(tmp_path: Path) -> None:
    app = app_with_commands(tmp_path)
    async with app.run_test(size=(SIZE[0], 100)) as pilot:  # tall enough for the whole of /help
        await pilot.press("f1")
        await wait_until(lambda: isinstance(app.screen, KeyHelpScreen), pause=pilot.pause, what="/help")
        await screen_shows(app, pilot, "Review a file for bugs")
        await pilot.press("escape")

        (app.workspace / ".claude" / "commands" / "later.md").write_text("Summarise the changes.")
        await pilot.press("/", "l", "a")
        await screen_shows(app, pilot, "/later", "Summarise the changes.")
        await pilot.press("backspace", "backspace", "backspace")

        await pilot.press("ctrl+p")
        await pilot.press(*"later")
        await screen_shows(app, pilot, "/later")  # the palette searches its providers in the background
        await pilot.press("enter")
        await screen_shows(app, pilot, "No bugs found.")
        assert app.session.messages[0].content == "Summarise the changes."


async def test_the_user_s_own_command_wins_and_the_repository_s_is_listed_beside_it(
    tmp_path: Path,
) -> None:
    app = app_with_commands(tmp_path)
    mine = tmp_path / "home" / ".claude" / "commands" / "review.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("---\ndescription: My [/] [bold]own[/bold] review\n---\nReview $ARGUMENTS my way.")
    async with app.run_test(size=(SIZE[0], 100)) as pilot:
        await pilot.press("/", "r", "e", "v")
        await wait_until(lambda: app.prompt.completion.is_open, pause=pilot.pause, what="completion")
        await screen_shows(app, pilot, "/review ARGUMENTS  My [/] [bold]own[/bold] review (user)")
        await pilot.press("backspace", "backspace", "backspace", *"pro")
        await wait_until(lambda: "/project:review FILE  Review a file for bugs (project)"
                         in screen_text(app), pause=pilot.pause, what="the repository's command")
        await pilot.press(*"ject:review app.py", "enter")
        await wait_until(lambda: "No bugs found." in screen_text(app), pause=pilot.pause, what="the answer")
        assert app.session.messages[0].content == "Review app.py for bugs."

        await pilot.press(*"/review app.py", "enter")
        await wait_until(lambda: "Second." in screen_text(app), pause=pilot.pause, what="the answer")
        assert app.session.messages[2].content == "Review app.py my way."

        await pilot.press("f1")
        await wait_until(lambda: isinstance(app.screen, KeyHelpScreen), pause=pilot.pause, what="/help")
        await wait_until(lambda: "My [/] [bold]own[/bold] review (user)" in screen_text(app),
                         pause=pilot.pause, what="the user's command in /help")
        await screen_shows(app, pilot, "Review a file for bugs (project)")
