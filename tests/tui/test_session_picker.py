"""The resume picker in the real app: titles across the whole width, each session's latest
prompt and age, the sessions ``/rewind`` forked marked with where they came from, and
``/rename`` showing up in it; at 80x24 and 120x40."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocode_tui.agent.store.session_store import list_sessions
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import Driver, Release, Type, play
from neocode_tui.tui.screens.session_picker import SessionPicker
from tests.support.reading import screen_text
from tests.support.screens import PICKER_NOW, SCREENS, write_saved_sessions
from tests.support.waits import screen_shows, wait_until

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


@pytest.fixture(autouse=True)
def pinned_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ages are counted from the same moment on every run."""
    monkeypatch.setattr(SessionPicker, "clock", lambda: PICKER_NOW)


def picker_app(tmp_path: Path) -> tuple[NeoCodeApp, list[str]]:
    scenario = SCREENS["session-picker"]
    workspace = scenario.prepare(tmp_path)
    ids = write_saved_sessions(workspace)
    return scenario.build_app(workspace), ids


async def open_picker(pilot, app: NeoCodeApp) -> None:
    await play(SCREENS["session-picker"], pilot)
    await wait_until(lambda: isinstance(app.screen, SessionPicker), pause=pilot.pause, what="the picker")
    # The rows are read off the disk after the picker opens: the newest one, a fork, is drawn.
    await wait_until(lambda: "↳ Flaky retry test fix" in screen_text(app), pause=pilot.pause,
                     what="the picker's rows")
    await pilot.pause()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_picker_with_a_fork_a_renamed_session_and_a_hostile_prompt(
    size: str, snap_compare, tmp_path: Path
) -> None:
    app, _ = picker_app(tmp_path)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=lambda pilot: open_picker(pilot, app))


async def test_each_row_says_title_latest_prompt_age_and_what_it_was_forked_from(tmp_path: Path) -> None:
    app, ids = picker_app(tmp_path)
    async with app.run_test(size=SIZES["120x40"]) as pilot:
        await open_picker(pilot, app)
        text = await screen_shows(
            app, pilot, "↳ Flaky retry test fix", "3 min ago", "› Retry with a fake clock instead of sleeping",
            'forked from "Flaky retry test fix" at prompt 2', "5 h ago", "› Now run the whole suite",
            "CLI verbosity", "yesterday", "Feb 20", "Nov 28 2025", "4 msgs · claude-sonnet-4",
            # the whole first line of a long prompt: the title has the width
            "Move the configuration loader to pydantic settings and keep the old names as aliases",
            "› Why does make test print ␛[31mred␛[0m on CI?",
        )
        assert "\x1b" not in text
        await pilot.press(*"fake clock")  # the filter reads the latest prompts too
        await screen_shows(app, pilot, "› Retry with a fake clock", gone=["CLI verbosity", "Now run the whole suite"])
        await pilot.press("enter")
        await wait_until(lambda: app.session.id == ids[0], pause=pilot.pause, what="the fork resumed")


async def test_a_long_title_is_cut_to_the_width_the_terminal_has(tmp_path: Path) -> None:
    app, _ = picker_app(tmp_path)
    async with app.run_test(size=SIZES["80x24"]) as pilot:
        await open_picker(pilot, app)
        await screen_shows(app, pilot, "↳ Flaky retry test fix", "3 min ago", "Retry with a fake clock")
        await pilot.press(*"pydantic")
        narrow = await screen_shows(app, pilot, "Move the configuration loader to pydantic settings", "Nov 28 2025")
        assert "keep the old names as aliases" not in narrow and "…" in narrow
        await pilot.resize_terminal(120, 40)
        await screen_shows(app, pilot, "Move the configuration loader to pydantic settings and keep the old")


async def test_a_renamed_session_is_listed_under_its_new_name(tmp_path: Path) -> None:
    app, _ = picker_app(tmp_path)
    async with app.run_test(size=SIZES["120x40"]) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("Write a retry helper"), Release()])
        await driver.play([Type("/rename")])
        await screen_shows(app, pilot, 'this session is "Write a retry helper"; /rename NEW TITLE renames it')
        await driver.play([Type("/rename Retry helper, second try")])
        await screen_shows(app, pilot, 'renamed this session "Retry helper, second try"')
        renamed = app.session.id
        await driver.play([Type("/clear")])
        await driver.play([Type("/resume")])
        await wait_until(lambda: isinstance(app.screen, SessionPicker), pause=pilot.pause, what="the picker")
        await screen_shows(app, pilot, "Retry helper, second try", "› Write a retry helper", "just now")
        assert [info.title for info in list_sessions(app.workspace) if info.id == renamed] == [
            "Retry helper, second try"]
