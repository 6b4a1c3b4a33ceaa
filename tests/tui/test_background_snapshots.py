"""A command sent to the background with Ctrl+B, ``/ps``'s live view of it, and the question
before quitting would stop it, as SVG snapshots at 80x24 and 120x40 (each was looked at
before it was committed).

The app's clock is the test's: the command has run 8.2 s when Ctrl+B is pressed, 12 s when
``/ps`` is asked, on every run and every machine."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from neocode_tui.providers.scripted import scripted_reply
from neocode_tui.tui.scenarios import Scenario, Type, play
from tests.support.reading import screen_text
from tests.support.waits import wait_until

_SERVE = "echo 'Serving HTTP on 127.0.0.1 port 8000 (http://127.0.0.1:8000/) ...'\nsleep 314159\n"
_START = ("bash", json.dumps({"command": "bash serve.sh"}))
SERVER = Scenario(
    "background", "a dev server sent to the background with Ctrl+B",
    lambda: [scripted_reply("Starting the dev server.", [_START]),
             scripted_reply("The dev server runs in the background as b1; /ps shows it.")],
    (Type("Start the dev server"),), files={"serve.sh": _SERVE}, approval="full-auto",
)
SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("screen", ["backgrounded", "ps", "quit"])
def test_background_screen(screen: str, size: str, snap_compare, tmp_path: Path) -> None:
    clock = [0.0]
    app = SERVER.build_app(SERVER.prepare(tmp_path), clock=lambda: clock[0])

    async def shows(pilot, text: str) -> None:
        await wait_until(lambda: text in " ".join(screen_text(app).split()), pause=pilot.pause,
                         what=repr(text))

    async def run_before(pilot) -> None:
        await play(SERVER, pilot)
        app.provider.allow(math.inf)  # type: ignore[attr-defined]
        await shows(pilot, "port 8000")
        clock[0] = 8.2
        await pilot.press("ctrl+b")
        await shows(pilot, "/ps shows it.")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the run's end")
        if screen == "quit":
            await pilot.press(*"/quit", "enter")
            await shows(pilot, "y quit and stop them")
        # Every block drawn once, so the scrollbar measures real heights, not estimates
        # (which blocks got drawn before scrolling away depends on the machine's speed).
        view = app.conversation
        view.scroll_to(y=0, animate=False, immediate=True)
        await view.settled()
        view.scroll_to_latest()
        await view.settled()
        await pilot.pause()
        if screen == "ps":  # the live view over it
            clock[0] = 12.0
            await pilot.press(*"/ps", "enter")
            await shows(pilot, "k stop the chosen one")
            await pilot.pause()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
