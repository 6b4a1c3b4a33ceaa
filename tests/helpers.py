"""Helpers every test folder shares: reading the screen, waiting for a condition."""

from __future__ import annotations

import asyncio
import io
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.app import App


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
    timeout: float = 5.0,
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
