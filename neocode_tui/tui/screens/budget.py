"""The question asked before a request would take the session past ``max_budget_usd``.

y sends it (and every later one: the user has seen the limit go); n or Esc stops the run
there, its transcript intact, so a later prompt can go on.
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from neocode_tui.tui.screens.dialog import answer_of, dialog_css


class BudgetScreen(ModalScreen[bool]):
    DEFAULT_CSS = dialog_css("BudgetScreen")

    BINDINGS = [
        Binding("y", "decide(True)", "Go on", show=False),
        Binding("n", "decide(False)", "Stop", show=False),
        Binding("escape", "decide(False)", "Stop", show=False),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Go past the budget?", id="title")
            yield Static(self.question[:1].upper() + self.question[1:] + ".", id="body")
            yield Static(Content.from_markup(
                "[b]y[/b] go on (no more questions this session)   [b]n[/b] / [b]esc[/b] stop here"),
                id="keys")

    def action_decide(self, go_on: bool) -> None:
        self.dismiss(go_on)


async def ask_budget(app: App[Any], question: str) -> bool:
    """Wait for the answer while the app keeps drawing; closing the app is a no."""
    return await answer_of(app, BudgetScreen(question), False)
