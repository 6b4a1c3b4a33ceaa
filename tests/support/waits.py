"""Waiting for what a test needs before it looks: a condition, text on screen, the app started
up, a file written; and how long a test is patient."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.pilot import Pilot

from tests.support.reading import reading, screen_text

if TYPE_CHECKING:
    from neocode_tui.tui.app import NeoCodeApp

PATIENCE = 90.0
"""How long a test waits for what it is not testing the speed of, or lets a time limit run
that is not under test: long enough for a machine whose cores are all busy many times over,
and a failure still ends with its own message before pytest-timeout's 120 s."""


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


async def wait_for_file(path: Path, within: float = PATIENCE) -> str:
    for _ in range(int(within / 0.02)):
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")
