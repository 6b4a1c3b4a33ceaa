"""The question asked before quitting would stop background commands: which ones, before
they are stopped. y quits, n or Esc stays."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from neocode_tui.terminal_text import visible
from neocode_tui.tui.screens.dialog import answer_of, dialog_css

if TYPE_CHECKING:
    from neocode_tui.agent.processes import Job


def stopping_words(jobs: list[Job]) -> str:
    """``1 background command is still running and stops with NeoCode: b1 npm run dev``."""
    count = len(jobs)
    listed = "; ".join(f"{job.id} {job.summary}" for job in jobs)
    running = "is" if count == 1 else "are"
    return (f"{count} background command{'s' * (count != 1)} {running} still running and "
            f"stop{'s' * (count == 1)} with NeoCode: {visible(listed)}")


class QuitScreen(ModalScreen[bool]):
    DEFAULT_CSS = dialog_css("QuitScreen")

    BINDINGS = [
        Binding("y", "decide(True)", "Quit", show=False),
        Binding("n,escape", "decide(False)", "Stay", show=False),
    ]

    def __init__(self, jobs: list[Job], jobs_key: str = "F2") -> None:
        """``jobs_key``: the key that shows them, as the user's keymap has it."""
        super().__init__()
        self.jobs = jobs
        self.jobs_key = jobs_key

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Quit NeoCode?", id="title")
            yield Static(stopping_words(self.jobs) + ".", id="body", markup=False)
            shows = f" ({self.jobs_key} shows them)" if self.jobs_key else ""
            yield Static(Content.from_markup(
                "[b]y[/b] quit and stop them   [b]n[/b] / [b]esc[/b] stay$shows", shows=shows), id="keys")

    def action_decide(self, leave: bool) -> None:
        self.dismiss(leave)


async def confirm_quit(app: App[Any], jobs: list[Job], jobs_key: str = "F2") -> bool:
    """Whether to quit, asked only when ``jobs`` (the running ones) would stop."""
    return not jobs or await answer_of(app, QuitScreen(jobs, jobs_key), False)
