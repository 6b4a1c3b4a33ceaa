"""Up and Ctrl+R reach the prompts of earlier runs in this folder: kept in the data folder
(0600, the session's secrets scrubbed out), and, after ``--continue``, the resumed session's
own. Ctrl+R shows its search over the prompt: the query, the prompt found with the query
marked, and the keys. The real app through Pilot, in the same folder run after run."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from neocode_tui.agent.store.prompt_history import history_file
from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE, Driver, StepProvider, Type
from neocode_tui.tui.scenarios.driver import PINNED_VERSION
from tests.support.waits import screen_shows, started, wait_until

KEY = "sk-test-history-0123456789abcdef"
FIRST, SECOND = "fix the flaky login test", f"deploy with the key {KEY} to staging"


def app_in(workspace: Path, replies: int = 0, **options: object) -> NeoCodeApp:
    turns = [scripted_reply(f"Answer {n}.") for n in range(1, replies + 1)]
    provider = StepProvider(ScriptedProvider(turns))
    provider.allow(float("inf"))
    settings = Settings(provider="scripted", openai_api_key=KEY)
    return NeoCodeApp(settings, provider, workspace, remember_theme=False, **options)  # type: ignore[arg-type]


async def earlier_run(workspace: Path) -> None:
    app = app_in(workspace, 2)
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type(FIRST), Type(SECOND)])
        await screen_shows(app, pilot, "Answer 2.")


async def history_read(app: NeoCodeApp, pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    await started(app, pilot)
    await wait_until(lambda: app.prompt.prompts.search(text) is not None, pause=pilot.pause,
                     what="the earlier prompts to be read")


async def test_up_and_ctrl_r_reach_the_prompts_of_an_earlier_run(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    await earlier_run(workspace)
    kept = history_file()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert KEY not in kept.read_text() and "deploy with the key" in kept.read_text()

    app = app_in(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await history_read(app, pilot, "flaky")
        await pilot.press("up")
        await wait_until(lambda: app.prompt.text.startswith("deploy with the key "), pause=pilot.pause,
                         what="the last prompt of the earlier run")
        assert KEY not in app.prompt.text
        await pilot.press("up")
        await wait_until(lambda: app.prompt.text == FIRST, pause=pilot.pause, what="the one before")
        await pilot.press("ctrl+c", *"draft", "ctrl+r")
        await screen_shows(app, pilot, 'search prompts: draft no earlier prompt holds it · Backspace · Esc cancel')
        for _ in "draft":
            await pilot.press("backspace")
        await pilot.press(*"login", "ctrl+r")
        await screen_shows(app, pilot, "search prompts: login · Ctrl+R older · Enter keep · Esc cancel")
        assert app.prompt.text == FIRST and app.prompt.selected_text == "login"
        await pilot.press("escape")
        await screen_shows(app, pilot, gone=["search prompts"])
        assert app.prompt.text == "draft"
        await pilot.press("ctrl+c", "ctrl+r", "enter")  # an empty query: the newest prompt
        await screen_shows(app, pilot, gone=["search prompts"])
        assert app.prompt.text.startswith("deploy with the key")  # kept, not sent
        assert not app.working


async def test_continue_brings_the_resumed_sessions_prompts_to_up(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    await earlier_run(workspace)
    history_file().unlink()  # a session saved before prompts were kept

    app = app_in(workspace, resume="")
    async with app.run_test(size=SIZE) as pilot:
        await history_read(app, pilot, "flaky")
        await pilot.press("up", "up")
        await wait_until(lambda: app.prompt.text == FIRST, pause=pilot.pause, what="the resumed prompt")
        await pilot.press("ctrl+c", *"again", "enter")
        await screen_shows(app, pilot, "resumed session")
    assert '"text": "again"' in history_file().read_text()


SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


@pytest.mark.parametrize("size", list(SIZES))
def test_history_search_screen(size: str, snap_compare, tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    history_file().parent.mkdir(parents=True)
    earlier = (FIRST, "add a --name flag", "rerun the login test")
    history_file().write_text("".join(f'{{"folder": "{workspace.resolve()}", "text": "{text}"}}\n' for text in earlier))
    # The same on every run: a pinned version and clock, a cursor that does not blink.
    app = app_in(workspace, blink=False, version=PINNED_VERSION, clock=lambda: 0.0)

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await history_read(app, pilot, "flaky")
        await pilot.press(*"login", "ctrl+r", "ctrl+r")
        await screen_shows(app, pilot, "search prompts: login · Ctrl+R older")
        await wait_until(lambda: app.prompt.text == FIRST, pause=pilot.pause, what="the older match")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
