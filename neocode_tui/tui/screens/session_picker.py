"""The session picker of ``/resume`` and ``neocode --resume``: the folder's saved sessions,
filtered as you type, Enter loads one.

Each row is laid out for the width it gets, each time it is drawn: the title takes what the
age leaves of the first line, the latest prompt the second, and a session made by
``/rewind`` says what it was forked from on a third. Everything in a row comes from the
session files (the model may have written it): control characters are shown, never sent.

It only shows and chooses; ``AgentSession.resume`` does the loading.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.css.styles import RulesMap
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from neocode_tui.agent.store import FORK_MARK, SessionInfo, age, fork_note, messages_count
from neocode_tui.terminal_text import visible
from neocode_tui.tui.screens.dialog import dialog_css


class SessionRow(Visual):
    """One session: title and age; its latest prompt, size and model; what it was forked from."""

    def __init__(self, info: SessionInfo, now: datetime) -> None:
        self.info = info
        self.now = now

    def lines(self, width: int) -> list[Content]:
        info = self.info
        when = age(info.updated, self.now)
        mark = Content.styled(f"{FORK_MARK} ", "$accent") if info.forked_from else Content("")
        title = Content.assemble(mark, (visible(info.title), "bold") if info.title else ("(no prompt yet)", "dim"))
        first = Content.assemble(title.truncate(max(1, width - len(when) - 2), ellipsis=True, pad=True),
                                 "  ", (when, "dim"))
        size = Content(f"{messages_count(info)} · {visible(info.model)}" if info.model
                       else messages_count(info)).stylize("dim").truncate(width // 3, ellipsis=True)
        latest = visible(info.latest_prompt) if info.latest_prompt != info.title else ""
        prompt = Content.styled(f"  › {latest}" if latest else "", "$text-muted")
        second = Content.assemble(prompt.truncate(max(1, width - size.cell_length - 2), ellipsis=True, pad=True),
                                  "  ", size)
        lines = [first, second]
        if note := fork_note(info):
            lines.append(Content.styled(f"    {visible(note)}", "$text-muted italic").truncate(width, ellipsis=True))
        return lines

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        return [strip for line in self.lines(width) for strip in line.render_strips(width, 1, style, options)]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return 3 if self.info.forked_from else 2


def matches(info: SessionInfo, query: str) -> bool:
    """Every word of ``query`` is in the title, latest prompt, parent's title, id or model
    (any case)."""
    haystack = f"{info.title} {info.latest_prompt} {info.parent_title} {info.id} {info.model}".lower()
    return all(word in haystack for word in query.lower().split())


class SessionPicker(ModalScreen[str | None]):
    """Dismissed with the chosen session's id, or None (Esc). The filter keeps the
    keyboard: Up/Down move in the list, Enter takes the highlighted session."""

    DEFAULT_CSS = dialog_css("SessionPicker") + """
    SessionPicker #filter { border: none; height: 1; padding: 0 1; background: $panel; }
    SessionPicker #sessions { height: auto; max-height: 60vh; border: none; background: $surface; }
    SessionPicker #empty { color: $text-muted; padding: 0 1; }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    clock: ClassVar[Callable[[], datetime]] = datetime.now
    """What the ages are counted from (snapshots pin it)."""

    def __init__(self, sessions: list[SessionInfo], *, now: datetime | None = None) -> None:
        super().__init__()
        self.sessions = sessions
        self.shown: list[SessionInfo] = list(sessions)
        self.now = now or type(self).clock()

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
        options.set_options(Option(SessionRow(info, self.now)) for info in self.shown)
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
