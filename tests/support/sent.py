"""What a terminal shows of a Pilot app: the updates Textual sent it, applied in order.

``screen_text`` (tests/support/reading.py) renders every widget afresh: what the app would draw now.
A terminal shows only what it was sent, frame after frame, so a line the app rendered but
never sent is in the first and missing from the second. Textual's headless driver writes
nothing, so the updates are read where the app hands them to its driver (``App._display``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from rich.cells import cell_len
from rich.console import RenderableType
from rich.segment import ControlType, Segment
from textual.app import App
from textual.message import Message
from textual.screen import Screen


class SentScreen:
    """The cells of a terminal ``size`` big that has been sent every update of ``app``
    since this was made (make it before the app runs, and the first frame is in it)."""

    def __init__(self, app: App[Any], size: tuple[int, int]) -> None:
        width, height = size
        self._cells = [[" "] * width for _ in range(height)]
        display = app._display

        def sent(screen: Screen[Any], update: RenderableType | None) -> None:
            if update is not None and not app._batch_count and screen is app.screen:
                self._apply(app.console.render(update))
            display(screen, update)

        app._display = sent  # type: ignore[method-assign]

    def _apply(self, segments: Iterable[Segment]) -> None:
        """Cursor moves and text, which is all a frame is: Textual moves the cursor to every
        piece of a line it sends, and no line it sends is longer than the screen."""
        x = y = 0
        for text, _, control in segments:
            if control:
                for code in control:
                    if code[0] == ControlType.CURSOR_MOVE_TO:
                        x, y = int(code[1]), int(code[2])
                continue
            row = self._cells[y] if 0 <= y < len(self._cells) else []
            for char in text.replace("\n", ""):
                width = cell_len(char)
                for cell in range(x, min(x + width, len(row))):
                    row[cell] = char if cell == x else ""  # a wide character covers two cells
                x += width

    def text(self) -> str:
        return "\n".join("".join(row).rstrip() for row in self._cells)


def rendered_before_every_message(app: App[Any]) -> Callable[[Message], None]:
    """A ``message_hook`` for ``run_test``: the whole screen is rendered before every
    message the app handles, and nothing of it sent.

    Textual renders every widget of the screen for each frame, whichever widget asked for
    it, and sends the terminal only the regions of those that asked: a frame drawn for the
    status bar's spinner (ten times a second) renders the conversation too. Such a frame
    comes at a moment of Textual's timer, by chance; here one comes at every moment it
    could, between any two messages."""

    def hook(message: Message) -> None:
        if app.screen_stack and app.screen.is_mounted:
            app.screen._compositor.render_strips()

    return hook
