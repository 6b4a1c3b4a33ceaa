"""Helpers every test folder shares: reading the screen, waiting for a condition."""

from __future__ import annotations

import asyncio
import io
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot

if TYPE_CHECKING:
    from neocode_tui.tui.app import NeoCodeApp

PATIENCE = 90.0
"""How long a test waits for what it is not testing the speed of, or lets a time limit run
that is not under test: long enough for a machine whose cores are all busy many times over,
and a failure still ends with its own message before pytest-timeout's 120 s."""


def screen_text(app: App[Any], styles: bool = False) -> str:
    """The characters on screen, modal screens over their background, as a person reads them
    (with the colours as markup when ``styles``).

    Textual has no public text export; this is the one place that reaches into it.
    """
    console = Console(
        width=app.size.width, file=io.StringIO(), record=True, color_system="truecolor",
        legacy_windows=False,
    )
    console.print(_whole_screen(app))
    return console.export_text(styles=styles)


def terminal_output(app: App[Any]) -> str:
    """What Textual writes to the terminal to paint the whole screen now: the text with
    its escape sequences, exactly as its driver is sent them."""
    return _whole_screen(app).render_segments(app.console)


def _whole_screen(app: App[Any]) -> Any:
    return app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)


async def wait_until(
    condition: Callable[[], bool],
    *,
    timeout: float = PATIENCE,
    pause: Callable[[], Awaitable[object]] | None = None,
    what: str = "the condition",
) -> None:
    """Wait for ``condition`` to hold; fail loudly with ``what`` when it does not in time.

    ``pause`` lets a Pilot settle between checks (``pilot.pause``); otherwise the event loop
    gets a short sleep.
    """
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        if pause is not None:
            await pause()
        else:
            await asyncio.sleep(0.01)


async def screen_shows(
    app: App[Any], pilot: Pilot[Any], *texts: str, gone: Sequence[str] = (), timeout: float = PATIENCE,
) -> str:
    """Wait until every one of ``texts`` is on screen, and none of ``gone``, and return the
    screen's text: what a test reads after something that draws in its own time (a worker,
    a timer, start-up, a widget's next refresh).

    Texts are read as a person reads them, across line ends and runs of spaces: a notice
    that names a temporary folder wraps where that folder's name happens to end. On a
    timeout the failure shows the screen as it last was.
    """
    last = ""
    wanted, unwanted = [reading(text) for text in texts], [reading(text) for text in gone]

    def shown() -> bool:
        nonlocal last
        last = screen_text(app)
        words = reading(last)
        return all(text in words for text in wanted) and not any(text in words for text in unwanted)

    what = f"{list(texts)!r} on screen" + (f" and {list(gone)!r} gone" if gone else "")
    try:
        await wait_until(shown, timeout=timeout, pause=pilot.pause, what=what)
    except AssertionError as timed_out:
        raise AssertionError(f"{timed_out}; the screen shows:\n{last}") from None
    return last


def reading(text: str) -> str:
    """``text`` with each run of spaces and line ends one space."""
    return " ".join(text.split())


async def started(app: NeoCodeApp, pilot: Pilot[Any], timeout: float = PATIENCE) -> None:
    """Wait until the app has started up (its session made, start-up's notices added, after
    any start-up question) and that is drawn."""
    try:
        await asyncio.wait_for(app.started_up.wait(), timeout)
    except TimeoutError:
        raise AssertionError(f"the app had not started up after {timeout} s; the screen shows:\n"
                             f"{screen_text(app)}") from None
    await app.conversation.settled()
    await pilot.pause()


def first_run(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """An empty project folder and the environment of someone running ``neocode`` for the
    first time there: no keys, no NEOCODE_ or Textual settings, fresh data and config folders."""
    workspace, data, config = (tmp_path / name for name in ("project", "data", "config"))
    for folder in (workspace, data, config):
        folder.mkdir(exist_ok=True)
    env = {key: value for key, value in os.environ.items()
           if "API_KEY" not in key and not key.startswith(("NEOCODE_", "TEXTUAL", "COLUMNS", "LINES"))}
    env.update(NEOCODE_DATA_DIR=str(data), NEOCODE_CONFIG_DIR=str(config))
    return workspace, env
