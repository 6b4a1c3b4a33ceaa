"""Vi mode in the real app, keys pressed with Pilot: ``/vim`` turns it on and it is
remembered, Esc goes to NORMAL (shown on the prompt's border), vi's commands edit the
prompt, Enter sends it, and Esc in NORMAL does what Esc did before vi mode."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.key_parser import KeyParser
from neocode_tui.tui.scenarios import SIZE, Driver, Release, StepProvider, Type, play
from neocode_tui.tui.user_config import app_state_file, load_user_config
from tests.support.screens import SCREENS
from tests.support.waits import screen_shows, started, wait_until

NORMAL, INSERT = "─ NORMAL ─", "─ INSERT ─"
"""The mode as the prompt's top border shows it."""


def scripted_app(tmp_path: Path, *replies: str) -> NeoCodeApp:
    workspace = tmp_path / "project"
    workspace.mkdir(exist_ok=True)
    provider = StepProvider(ScriptedProvider([scripted_reply(reply, delta=4) for reply in replies]))
    return NeoCodeApp(Settings(provider="scripted"), provider, workspace, remember_theme=False)


async def turn_vi_on(app: NeoCodeApp, pilot) -> None:
    await started(app, pilot)
    await pilot.press(*"/vim", "enter")
    await screen_shows(app, pilot, "vi mode on", INSERT)


async def test_vim_edits_the_prompt_with_vi_keys_and_enter_sends_it(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, "Done.")
    async with app.run_test(size=SIZE) as pilot:
        await turn_vi_on(app, pilot)
        await pilot.press(*"fix the old helper now")
        await pilot.press("escape")
        await screen_shows(app, pilot, NORMAL, gone=[INSERT])
        assert app.prompt.cursor_location == (0, 21)  # onto the last character typed
        # In NORMAL a key is a command, never typed: b b d w deletes "helper ".
        await pilot.press("b", "b", "d", "w")
        assert (app.prompt.text, app.prompt.cursor_location) == ("fix the old now", (0, 12))
        await pilot.press("b", "c", "w", *"new", "escape")
        assert (app.prompt.text, app.prompt.cursor_location) == ("fix the new now", (0, 10))
        await pilot.press("u")
        assert (app.prompt.text, app.prompt.cursor_location) == ("fix the old now", (0, 8))
        await pilot.press("backspace")  # a move left in NORMAL, as in vi
        assert (app.prompt.text, app.prompt.cursor_location) == ("fix the old now", (0, 7))
        await pilot.press("0", "2", "w", "x", "p")  # x then p swaps two characters
        assert app.prompt.text == "fix the lod now"
        await pilot.press("2", "d")
        await screen_shows(app, pilot, "─ NORMAL 2d ─")  # a half-typed command shows as typed
        await pilot.press("escape")  # Esc drops it
        await screen_shows(app, pilot, NORMAL, gone=["─ NORMAL 2d ─"])
        await pilot.press("A", *" please")
        await screen_shows(app, pilot, INSERT)
        assert app.prompt.text == "fix the lod now please"
        await pilot.press("escape", "enter")  # Enter in NORMAL sends, as in INSERT
        await screen_shows(app, pilot, "fix the lod now please")
        assert app.prompt.text == ""
        # The emptied prompt starts again in INSERT: the next prompt is typed right away.
        await screen_shows(app, pilot, INSERT)
        await pilot.press("q")
        assert app.prompt.text == "q"


async def test_lines_counts_and_the_register_across_lines(tmp_path: Path) -> None:
    app = scripted_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await turn_vi_on(app, pilot)
        await pilot.press(*"one", "ctrl+j", *"two", "ctrl+j", *"three", "ctrl+j", *"four", "escape")
        await pilot.press("k", "k")
        assert app.prompt.cursor_location == (1, 2)
        await pilot.press("2", "d", "d")
        assert (app.prompt.text, app.prompt.cursor_location) == ("one\nfour", (1, 0))
        await pilot.press("P")  # the two lines, back above
        assert app.prompt.text == "one\ntwo\nthree\nfour"
        await pilot.press("g", "g", "y", "y", "G", "p")
        assert (app.prompt.text, app.prompt.cursor_location) == ("one\ntwo\nthree\nfour\none", (4, 0))
        await pilot.press("k", "$", "r", "R")
        assert app.prompt.text == "one\ntwo\nthree\nfouR\none"
        await pilot.press("O", *"new", "escape")
        assert app.prompt.text == "one\ntwo\nthree\nnew\nfouR\none"
        await pilot.press("g", "g", "3", "w")  # words go on across lines
        assert app.prompt.cursor_location == (3, 0)
        # The Tab key and keys that are no command type nothing in NORMAL.
        await pilot.press("tab", "z", "question_mark")
        assert app.prompt.text == "one\ntwo\nthree\nnew\nfouR\none"


async def test_k_and_j_at_the_first_and_last_line_walk_the_history(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, "A.", "B.")
    async with app.run_test(size=SIZE) as pilot:
        await turn_vi_on(app, pilot)
        driver = Driver(pilot)
        await driver.play([Type("first\nsecond line"), Release(), Type("latest"), Release()])
        await pilot.press(*"draft", "escape", "k")
        assert app.prompt.text == "latest"
        await screen_shows(app, pilot, NORMAL)  # still NORMAL: k again goes further back
        await pilot.press("k")
        assert app.prompt.text == "first\nsecond line"
        assert app.prompt.cursor_location == (1, 10)  # on the last character, not past it
        await pilot.press("k")  # a line up within the recalled prompt
        assert app.prompt.text == "first\nsecond line" and app.prompt.cursor_location[0] == 0
        await pilot.press("j", "j")  # down to the last line, then forward in the history
        assert app.prompt.text == "latest"
        await pilot.press("j")
        assert app.prompt.text == "draft"


async def test_esc_in_insert_goes_to_normal_and_esc_in_normal_interrupts(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, "A long answer that streams slowly, word by word, to the end.")
    async with app.run_test(size=SIZE) as pilot:
        await turn_vi_on(app, pilot)
        await Driver(pilot).play([Type("go"), Release(2)])
        assert app.working
        await pilot.press(*"next", "escape")
        await screen_shows(app, pilot, NORMAL)
        assert app.working  # the first Esc only left INSERT
        await pilot.press("escape")
        await screen_shows(app, pilot, "Interrupted")
        assert not app.working
        assert app.prompt.text == "next"


def terminal_sends(app: NeoCodeApp, data: str) -> None:
    """``data`` as the terminal's bytes, read by the parser the app's driver uses."""
    parser = KeyParser(debug=False)
    for event in [*parser.feed(data), *parser.feed("")]:
        app.post_message(event)


async def test_esc_typed_with_the_next_key_is_esc_then_that_key_in_insert_and_that_key_in_normal(
    tmp_path: Path,
) -> None:
    app = scripted_app(tmp_path, "A long answer that streams slowly, word by word, to the end.")
    async with app.run_test(size=SIZE) as pilot:
        await turn_vi_on(app, pilot)
        await Driver(pilot).play([Type("go"), Release(2)])
        await pilot.press(*"one two")
        terminal_sends(app, "\x1b0")  # Esc, 0 in one read: NORMAL, then to the line's start
        await wait_until(lambda: app.prompt.cursor_location == (0, 0), pause=pilot.pause, what="Esc then 0")
        await screen_shows(app, pilot, NORMAL)
        await pilot.press("w")
        terminal_sends(app, "\x1bb")  # in NORMAL: b alone, the turn goes on
        await wait_until(lambda: app.prompt.cursor_location == (0, 0), pause=pilot.pause, what="b")
        assert app.working and app.prompt.text == "one two"


async def test_esc_closes_an_open_list_first_then_goes_to_normal(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, "A long answer that streams slowly, word by word, to the end.")
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await Driver(pilot).play([Type("go"), Release(2)])
        # Without vi mode: the first Esc closes the list, the next interrupts the turn.
        await pilot.press(*"/the")
        await screen_shows(app, pilot, "/theme NAME")
        await pilot.press("escape")
        await screen_shows(app, pilot, gone=["/theme NAME"])
        assert app.working
        await pilot.press("escape")
        await screen_shows(app, pilot, "Interrupted")
        assert not app.working
        # With it: the first closes the list, the next goes to NORMAL.
        await pilot.press("ctrl+c", *"/vim", "enter")
        await screen_shows(app, pilot, "vi mode on", INSERT)
        await pilot.press(*"/the")
        await screen_shows(app, pilot, "/theme NAME")
        await pilot.press("escape")
        await screen_shows(app, pilot, INSERT, gone=["/theme NAME"])
        await pilot.press("escape")
        await screen_shows(app, pilot, NORMAL)
        assert app.prompt.text == "/the"
        await pilot.press("A", "m")  # typing again opens the list for the new text
        await screen_shows(app, pilot, INSERT, "/theme NAME")


async def test_vi_mode_is_remembered_across_a_restart(tmp_path: Path) -> None:
    assert Path(os.environ["NEOCODE_CONFIG_DIR"]) in app_state_file().parents
    app = scripted_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await turn_vi_on(app, pilot)
    assert json.loads(app_state_file().read_text())["vim"] is True

    again = scripted_app(tmp_path)
    async with again.run_test(size=SIZE) as pilot:
        await started(again, pilot)
        await screen_shows(again, pilot, INSERT)
        await pilot.press(*"abc", "escape", "x")
        assert again.prompt.text == "ab"
        await pilot.press("ctrl+c", *"/vim", "enter")
        await screen_shows(again, pilot, "vi mode off", gone=[INSERT, NORMAL])
        await pilot.press(*"x", "escape", "x")  # the plain editor: x is typed
        assert again.prompt.text == "xx"
    assert load_user_config().vim is False

    third = scripted_app(tmp_path)
    async with third.run_test(size=SIZE) as pilot:
        await started(third, pilot)
        await pilot.press(*"/vim sideways", "enter")
        await screen_shows(third, pilot, "/vim takes on, off or nothing")
        await pilot.press(*"/vim on", "enter")
        await screen_shows(third, pilot, "vi mode on", INSERT)
        await pilot.press(*"/vim on", "enter")  # on stays on
        await wait_until(lambda: third.prompt.text == "", pause=pilot.pause)
        assert third.prompt.vi is not None


async def test_a_damaged_settings_file_starts_with_vi_mode_off(tmp_path: Path) -> None:
    app_state_file().parent.mkdir(parents=True, exist_ok=True)
    app_state_file().write_text('{"vim": "yes"}')  # not true: off
    app = scripted_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        assert app.prompt.vi is None
        await pilot.press(*"/vim", "enter")
        await screen_shows(app, pilot, "vi mode on")
    assert json.loads(app_state_file().read_text())["vim"] is True


SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


@pytest.mark.parametrize("size", list(SIZES))
def test_normal_mode_screen(size: str, snap_compare, tmp_path: Path) -> None:
    """The prompt's border says NORMAL, the notice says how vi mode works."""
    scenario = SCREENS["empty"]
    app = scenario.build_app(scenario.prepare(tmp_path))

    async def run_before(pilot) -> None:
        await play(scenario, pilot)
        await pilot.press(*"/vim", "enter", *"Refactor the retry helper", "ctrl+j", *"and add tests")
        await pilot.press("escape", "b", "b")
        await screen_shows(app, pilot, NORMAL, "vi mode on")

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
