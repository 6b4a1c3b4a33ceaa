"""Reading the app's screen as a person reads it, and what Textual writes to paint it."""

from __future__ import annotations

import io
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


def reading(text: str) -> str:
    """``text`` with each run of spaces and line ends one space."""
    return " ".join(text.split())


def toast_text(app: App[Any]) -> str:
    """The words of the toasts on screen, as a person reads them (read from their own
    region: a toast is drawn over the conversation, whose words would run into its lines)."""
    from textual.widgets._toast import Toast  # Textual has no public name for it

    rows = screen_text(app).splitlines()
    words = []
    for toast in app.query(Toast):
        box = toast.region
        words += [row[box.x:box.right] for row in rows[box.y:box.bottom]]
    return reading(" ".join(word.replace("▌", " ") for word in words))
