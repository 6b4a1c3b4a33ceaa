"""Claude Code guards from npm and PyPI in the app, driven with Pilot: cc-safety-net's denial
shows on the call's panel, and a Python guard's "ask" is a question the user answers, in a
mode that asks nothing otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from neocode_tui.tui.screens.approval import ApprovalScreen
from tests.support.guards import SECRET, WORK, guarded_project, javascript_guard, python_guards
from tests.support.reading import screen_text
from tests.support.waits import screen_shows, wait_until


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    return home


def guarded_app(tmp_path: Path, call: tuple[str, str], answer: str) -> NeoCodeApp:
    workspace = tmp_path / "project"
    workspace.mkdir()
    guarded_project(workspace)
    provider = ScriptedProvider([scripted_reply("", [call]), scripted_reply(answer)])
    settings = Settings(provider="scripted", approval="full-auto", sandbox="off")
    return NeoCodeApp(settings, provider, workspace, remember_theme=False)


async def test_cc_safety_net_s_denial_shows_on_the_call_and_the_work_stays(tmp_path: Path, home: Path) -> None:
    javascript_guard(home)
    app = guarded_app(tmp_path, ("bash", json.dumps({"command": "git reset --hard"})), "It was blocked.")
    async with app.run_test(size=(SIZE[0], 60)) as pilot:
        await pilot.press(*"discard my changes", "enter")
        await wait_until(lambda: "It was blocked." in screen_text(app), pause=pilot.pause, what="the answer")
        await screen_shows(app, pilot, "git reset --hard", "blocked by a PreToolUse hook: BLOCKED by CC Safety Net")
        assert not isinstance(app.screen, ApprovalScreen)
    assert (tmp_path / "project" / "app.py").read_text() == WORK


async def test_a_python_guard_that_asks_puts_the_question_to_the_user(tmp_path: Path, home: Path) -> None:
    python_guards(home)
    app = guarded_app(tmp_path, ("read_file", json.dumps({"path": ".env"})), "Left it alone.")
    async with app.run_test(size=(SIZE[0], 60)) as pilot:
        await pilot.press(*"show me the env", "enter")
        await wait_until(lambda: isinstance(app.screen, ApprovalScreen), pause=pilot.pause, what="the question")
        await pilot.press("escape")  # no, without a reason
        await wait_until(lambda: "Left it alone." in screen_text(app), pause=pilot.pause, what="the answer")
        await screen_shows(app, pilot, "asks: azet-guard: [read_secret_file]", "the user denied this call")
        assert SECRET not in screen_text(app)
    assert app.session.messages and SECRET not in json.dumps([m.model_dump() for m in app.session.messages])
