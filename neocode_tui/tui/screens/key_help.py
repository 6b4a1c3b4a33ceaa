"""The key-help overlay (F1, or ? on an empty prompt): every key, as the user bound it,
and every slash command.

It is read while typing: a character typed over it closes it and goes into the prompt, so
a user who opened it to look up a key loses nothing of what they type next."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from neocode_tui.terminal_text import visible
from neocode_tui.tui.commands import SlashCommand
from neocode_tui.tui.keymap import ACTIONS, FIXED, KeyMap, label


def _table(title: str, rows: list[tuple[str, str]]) -> Table:
    """Cells are plain text: a custom command's name and description come from files a
    repository may have written, and must not be read as markup."""
    table = Table.grid(padding=(0, 2))
    table.title = title
    table.title_justify = "left"
    table.title_style = "bold"
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for key, meaning in rows:
        table.add_row(Text(visible(key)), Text(visible(meaning)))  # custom commands come from files
    return table


def key_rows(keys: KeyMap) -> list[tuple[str, str]]:
    """Each action with its keys (the user's marked, with the default they replace), then
    the keys no one rebinds."""
    rows = []
    for action in ACTIONS:
        meaning = action.meaning
        if action.name in keys.yours:
            default = "  ".join(label(tuple(spec.split())) for spec in action.defaults) or "none"
            meaning += f" · your key (default {default})"
        rows.append((keys.label(action.name) or "(no key)", meaning))
        rows += [(key, fixed) for after, key, fixed in FIXED if after == action.name]
    return rows


class KeyHelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    KeyHelpScreen { align: center middle; }
    KeyHelpScreen > VerticalScroll {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 90%;
        border: round $primary;
        background: $surface;
        padding: 0 1;
    }
    KeyHelpScreen .hint { color: $text-muted; margin-top: 1; }
    """

    BINDINGS = [
        Binding("escape,f1,question_mark", "dismiss", "Close", show=False),
    ]

    def __init__(self, commands: Iterable[SlashCommand], keys: KeyMap, type_into: Callable[[str], object]) -> None:
        """``type_into``: where a character typed over the list goes (the prompt)."""
        super().__init__()
        self.commands = list(commands)
        self.keys = keys
        self._type_into = type_into
        self._typing_on = False
        """Keys typed fast reach the list until it is gone: one closes it, all are typed."""

    def on_key(self, event: events.Key) -> None:
        if self._typing_on or (event.key != "question_mark" and event.is_printable and event.character):
            event.stop()
            event.prevent_default()
            if not self._typing_on:
                self._typing_on = True
                self.dismiss()
            if event.character and event.is_printable:
                self._type_into(event.character)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(_table("Keys", key_rows(self.keys)))
            yield Static(_table("\nCommands", [(c.usage, c.help) for c in self.commands]))
            yield Static("Esc closes this list; typing goes on into the prompt", classes="hint")
