"""The session picker of ``/resume`` and ``neocode --resume``: the folder's saved sessions,
filtered as you type, Enter loads one.

It only shows and chooses; ``AgentSession.resume`` does the loading.
"""

from __future__ import annotations

from datetime import datetime

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from neocode_tui.agent.store import SessionInfo
from neocode_tui.terminal_text import visible
from neocode_tui.tui.dialog import dialog_css

TITLE_WIDTH = 40


def session_line(info: SessionInfo, now: datetime) -> Content:
    """One row: title, when, how many messages, which model."""
    title = visible(info.title) or "(no prompt yet)"
    if len(title) > TITLE_WIDTH:
        title = title[: TITLE_WIDTH - 1] + "…"
    when = f"{info.updated:%H:%M}" if info.updated.date() == now.date() else f"{info.updated:%Y-%m-%d}"
    count = f"{info.messages} msg" if info.messages == 1 else f"{info.messages} msgs"
    return Content.assemble(
        (title.ljust(TITLE_WIDTH), "bold" if info.title else "dim"),
        (f"  {when:>10}  {count:>8}  ", "dim"),
        (visible(info.model), "$accent"),
    )


def matches(info: SessionInfo, query: str) -> bool:
    """Every word of ``query`` is in the title, id or model (any case)."""
    haystack = f"{info.title} {info.id} {info.model}".lower()
    return all(word in haystack for word in query.lower().split())


class SessionPicker(ModalScreen[str | None]):
    """Dismissed with the chosen session's id, or None (Esc). The filter keeps the
    keyboard: Up/Down move in the list, Enter takes the highlighted session."""

    DEFAULT_CSS = dialog_css("SessionPicker") + """
    SessionPicker #filter { border: none; height: 1; padding: 0 1; background: $panel; }
    SessionPicker #sessions { height: auto; max-height: 16; border: none; background: $surface; }
    SessionPicker #empty { color: $text-muted; padding: 0 1; }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, sessions: list[SessionInfo], *, now: datetime | None = None) -> None:
        super().__init__()
        self.sessions = sessions
        self.shown: list[SessionInfo] = list(sessions)
        self.now = now or datetime.now()

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Resume which session?", id="title")
            yield Input(placeholder="type to filter", id="filter", compact=True)
            yield OptionList(id="sessions")
            yield Static("no session matches", id="empty")
            yield Static(
                Content.assemble(
                    ("↑↓", "bold"), " choose   ", ("enter", "bold"), " resume   ",
                    ("esc", "bold"), " cancel   type to filter",
                ),
                id="keys",
            )

    def on_mount(self) -> None:
        self._show("")
        self.query_one("#filter", Input).focus()

    def _show(self, query: str) -> None:
        self.shown = [info for info in self.sessions if matches(info, query)]
        options = self.query_one("#sessions", OptionList)
        options.set_options(Option(session_line(info, self.now)) for info in self.shown)
        options.highlighted = 0 if self.shown else None
        options.display = bool(self.shown)
        self.query_one("#empty", Static).display = not self.shown

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._show(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        index = self.query_one("#sessions", OptionList).highlighted
        if index is not None and self.shown:
            self.dismiss(self.shown[index].id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()  # a click on a row
        self.dismiss(self.shown[event.option_index].id)

    def on_key(self, event: events.Key) -> None:
        if event.key in ("up", "down", "pageup", "pagedown"):
            event.stop()
            event.prevent_default()
            getattr(self.query_one("#sessions", OptionList), f"action_{_MOVES[event.key]}")()

    def action_cancel(self) -> None:
        self.dismiss(None)


_MOVES = {"up": "cursor_up", "down": "cursor_down", "pageup": "page_up", "pagedown": "page_down"}
