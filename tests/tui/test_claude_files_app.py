"""A Claude Code setup in the app, driven with Pilot: NextSpark's skills (from npm) in
~/.claude/skills are slash commands in completion, /help and the palette, and
selfish-pipeline's commands (from npm) ask before their ``!`command``` lines run."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from neocode_tui.tui.screens.approval import ApprovalScreen
from neocode_tui.tui.screens.key_help import KeyHelpScreen
from tests.support.claude_sets import NEXTSPARK, SELFISH, copied
from tests.support.reading import screen_text
from tests.support.waits import screen_shows, wait_until


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    copied(NEXTSPARK / "skills", home / ".claude" / "skills")
    return home


def app_in(tmp_path: Path, *replies: str) -> NeoCodeApp:
    workspace = tmp_path / "project"
    copied(SELFISH / "commands", workspace / ".claude" / "commands" / "selfish")
    (workspace / ".claude" / "selfish.config.md").write_text("CONFIG_MARKER_4711\n")
    provider = ScriptedProvider([scripted_reply(text) for text in replies])
    return NeoCodeApp(Settings(provider="scripted"), provider, workspace, remember_theme=False)


async def test_a_skill_completes_is_in_help_and_the_palette_and_runs(tmp_path: Path, home: Path) -> None:
    app = app_in(tmp_path, "Listed the sessions.", "Scaffolded.")
    async with app.run_test(size=(SIZE[0], 200)) as pilot:
        await pilot.press(*"/session-m")
        await screen_shows(app, pilot, "/session-management  Session Management Skill (user skill)")
        await pilot.press("tab", "enter")
        await screen_shows(app, pilot, "Listed the sessions.")
        assert app.session.messages[0].content.startswith("# Session Management Skill")

        await pilot.press("f1")
        await wait_until(lambda: isinstance(app.screen, KeyHelpScreen), pause=pilot.pause, what="/help")
        await screen_shows(app, pilot, "/accessibility", "(user skill)")
        await pilot.press("escape")

        await pilot.press("ctrl+p", *"nextjs-api")
        await screen_shows(app, pilot, "/nextjs-api-development")
        await pilot.press("enter")  # it takes arguments: the prompt waits for them
        await wait_until(lambda: app.prompt.text == "/nextjs-api-development ", pause=pilot.pause,
                         what="the command in the prompt")
        await pilot.press(*"orders", "enter")
        await screen_shows(app, pilot, "Scaffolded.")
        assert app.session.messages[2].content.endswith("\n\nARGUMENTS: orders")


async def test_a_repository_command_asks_before_its_line_runs(tmp_path: Path, home: Path) -> None:
    app = app_in(tmp_path, "Reviewed.")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/review staged", "enter")
        await wait_until(lambda: isinstance(app.screen, ApprovalScreen), pause=pilot.pause, what="the question")
        await screen_shows(app, pilot, "cat .claude/selfish.config.md")
        await pilot.press("y")
        await wait_until(lambda: "Reviewed." in screen_text(app), pause=pilot.pause, what="the answer")
        await screen_shows(app, pilot, "$ cat .claude/selfish.config.md", "CONFIG_MARKER_4711", "✓ done")
        sent = app.session.messages[0].content
        assert isinstance(sent, str) and "CONFIG_MARKER_4711" in sent and "!`cat" not in sent

    resumed = NeoCodeApp(Settings(provider="scripted"), ScriptedProvider([]), tmp_path / "project",
                         remember_theme=False, resume="")
    async with resumed.run_test(size=SIZE) as pilot:  # --continue: the command's line, as it ran
        shown = await screen_shows(resumed, pilot, "$ cat .claude/selfish.config.md", "CONFIG_MARKER_4711",
                                   "✓ done", "Reviewed.")
        assert shown.index("$ cat .claude/selfish.config.md") < shown.index("Reviewed.")
