"""Your keys: a ``[keys]`` table in config.toml moves the app's actions to other keys (a
chord too), what is wrong in it is said on screen at start, and the key overlay lists the
keys as you bound them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from neocode_tui.providers.scripted import scripted_reply
from neocode_tui.tui.scenarios import SIZE, Driver, Release
from neocode_tui.tui.screens.key_help import KeyHelpScreen
from tests.support.apps import scripted_app
from tests.support.reading import toast_text
from tests.support.waits import screen_shows, started, wait_until

KEYS = """
[keys]
send = "ctrl+s"
newline = ["enter", "alt+enter"]
cycle_mode = "f5"
fold = "ctrl+x ctrl+t"
history_search = "ctrl+x ctrl+r"
"""


def user_config(text: str) -> Path:
    path = Path(os.environ["NEOCODE_CONFIG_DIR"]) / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


async def test_your_send_and_newline_keys_replace_enter(tmp_path: Path) -> None:
    user_config(KEYS)
    app = scripted_app(tmp_path, [scripted_reply("Two lines read.")])
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await pilot.press(*"one", "enter", *"two", "alt+enter", *"three")
        assert app.prompt.text == "one\ntwo\nthree" and app.session.messages == []
        await pilot.press("ctrl+s")
        await Driver(pilot).step(Release())
        await screen_shows(app, pilot, "Two lines read.")
        assert app.session.messages[0].content == "one\ntwo\nthree"


async def test_an_app_action_on_your_key_and_on_a_chord(tmp_path: Path) -> None:
    user_config(KEYS)
    app = scripted_app(tmp_path, [scripted_reply("Hi.")])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await started(app, pilot)
        await pilot.press("shift+tab")  # no longer the mode's key
        assert app.session.approval == "ask"
        await pilot.press("f5")
        assert app.session.approval == "auto-edit"
        await pilot.press("ctrl+x")
        await wait_until(lambda: "Ctrl+X … (Esc cancels)" in toast_text(app), pause=pilot.pause,
                         what="the chord's hint")
        await pilot.press("ctrl+r")  # Ctrl+X Ctrl+R: the history search, in the prompt
        await screen_shows(app, pilot, "search prompts:")


async def test_a_chord_typed_fast_acts_where_it_was_typed(tmp_path: Path) -> None:
    user_config('[keys]\nnewline = "ctrl+x n"\n')
    app = scripted_app(tmp_path, [scripted_reply("Hi.")])
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await pilot.press(*"ab", "ctrl+x", "n", *"cd")
        assert app.prompt.text == "ab\ncd"
        await pilot.press("ctrl+x", "q")  # no chord goes on with q: the start is dropped, q typed
        assert app.prompt.text == "ab\ncdq"
        await pilot.press("ctrl+x", "escape", "n")
        assert app.prompt.text == "ab\ncdqn"


async def test_what_is_wrong_in_your_keys_is_said_at_start(tmp_path: Path) -> None:
    path = user_config("""
[keys]
sned = "ctrl+s"
fold = "ctrl+o"
jobs = "hyper+j"
search = "ctrl+c"
copy = "y"
key_help = ["ctrl+x", "ctrl+x ctrl+h"]
background = "ctrl+e"
""")
    app = scripted_app(tmp_path, [scripted_reply("Hi.")])
    async with app.run_test(size=(160, 50)) as pilot:
        await started(app, pilot)
        await screen_shows(
            app, pilot,
            f"{path} [keys]: 'sned' is not an action (did you mean 'send'?)",
            "Ctrl+O now does fold (your key), no longer expand, which has no key left",
            "jobs: 'hyper+j': a terminal does not pass hyper on to the app",
            "search: Ctrl+C is not given to any action",
            "copy: Y types a character",
            "key_help: Ctrl+X Ctrl+H can never be pressed: Ctrl+X alone does key_help",
            "Ctrl+E now does background, your key, in the prompt too: it no longer does cursor line end",
        )
        await pilot.press("ctrl+o")  # now fold's: the latest fold, not the whole transcript
        assert not app.conversation._transcript


async def test_the_key_overlay_lists_your_keys(tmp_path: Path) -> None:
    user_config(KEYS)
    app = scripted_app(tmp_path, [scripted_reply("Hi.")])
    async with app.run_test(size=(120, 40)) as pilot:
        await started(app, pilot)
        await pilot.press("f1")
        await wait_until(lambda: isinstance(app.screen, KeyHelpScreen), pause=pilot.pause, what="the overlay")
        text = await screen_shows(app, pilot, "Ctrl+S send (while it works", "Enter  Alt+Enter new line",
                                  "Ctrl+X Ctrl+T fold",
                                  "F5 cycle the mode: ask, auto-edit, plan · your key (default Shift+Tab)")
        assert "│ Shift+Tab " not in text and "│ F5 " in text  # the key column: yours, not the default
        await pilot.press("f1")
        await wait_until(lambda: not isinstance(app.screen, KeyHelpScreen), pause=pilot.pause,
                         what="the overlay to close")  # F1 again closes it
        await screen_shows(app, pilot, gone=["Ctrl+S send (while it works"])


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_key_overlay_with_your_keys_screen(size: tuple[int, int], snap_compare, tmp_path: Path) -> None:
    user_config(KEYS)
    app = scripted_app(tmp_path, [scripted_reply("Hi.")])

    async def run_before(pilot) -> None:
        await started(app, pilot)
        await pilot.press("f1")
        await screen_shows(app, pilot, "Ctrl+S send (while it works")

    assert snap_compare(app, terminal_size=size, run_before=run_before)


HINT_KEYS = """
[keys]
key_help = "f5"
interrupt = "ctrl+g"
fold = "f6"
"""


async def test_every_hint_names_the_keys_you_bound(tmp_path: Path) -> None:
    user_config(HINT_KEYS)
    app = scripted_app(tmp_path, [scripted_reply("Done.", reasoning="Think it over.")])
    async with app.run_test(size=(120, 30)) as pilot:
        await started(app, pilot)
        text = await screen_shows(app, pilot, "type a task and press Enter · F5 keys · / commands · Ctrl+G interrupts")
        assert "F1 keys" not in text and "Esc interrupts" not in text
        await pilot.press(*"think", "enter")
        await Driver(pilot).step(Release())
        text = await screen_shows(app, pilot, "Done.", "F6 or click to expand")
        assert "Ctrl+T" not in text
