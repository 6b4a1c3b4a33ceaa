"""What every modal dialog shares: a framed box in the middle of the screen, and waiting
for its answer."""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

from textual.app import App
from textual.screen import ModalScreen

T = TypeVar("T")


def dialog_css(screen: str) -> str:
    """CSS for ``screen`` (a ``ModalScreen`` class name) whose box is the child ``#dialog``,
    with a bold ``#title`` and a muted ``#keys`` line."""
    return f"""
    {screen} {{ align: center middle; }}
    {screen} > #dialog {{
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 90%;
        border: thick $primary 80%;
        background: $surface;
        padding: 0 1;
    }}
    {screen} #title {{ text-style: bold; margin-bottom: 1; }}
    {screen} #keys {{ margin-top: 1; color: $text-muted; }}
"""


async def answer_of(app: App[Any], screen: ModalScreen[T], otherwise: T) -> T:
    """``screen``'s answer (``otherwise`` when it closes without one) while the app keeps
    drawing; a question still open when the app closes goes with it."""
    answer: asyncio.Future[T] = asyncio.get_running_loop().create_future()

    def deliver(result: T | None) -> None:
        if not answer.done():
            answer.set_result(otherwise if result is None else result)

    app.push_screen(screen, deliver)
    try:
        return await answer
    finally:
        if app.is_running and app.screen is screen:
            app.pop_screen()
