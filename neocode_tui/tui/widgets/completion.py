"""The slash-command completion list shown above the input while a command is typed."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from neocode_tui.terminal_text import visible
from neocode_tui.tui.commands import Completion


class SlashCompletion(OptionList):
    """Never focused: the input keeps the keyboard and forwards Up/Down/Tab/Enter here."""

    can_focus = False

    DEFAULT_CSS = """
    SlashCompletion {
        display: none;
        height: auto;
        max-height: 10;
        border: none;
        padding: 0 1;
        background: $surface;
    }
    SlashCompletion.-open { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.completions: list[Completion] = []
        self.shown_for: str | None = None
        """The input text these completions were made for; None before any."""

    @property
    def is_open(self) -> bool:
        return bool(self.completions)

    def show(self, completions: list[Completion], *, text: str | None = None, preselect: bool = True) -> None:
        """``text``: what the input held. ``preselect``: highlight the first item, so Enter
        takes it; off for a list nobody has narrowed yet (Enter then sends the line as typed)."""
        self.completions = completions
        self.shown_for = text
        labels = [visible(item.label) for item in completions]
        width = max(map(len, labels), default=0) + 2
        self.set_options(
            Option(Content.assemble((label.ljust(width), "bold"), (visible(item.help), "dim")))
            for label, item in zip(labels, completions, strict=True)
        )
        self.highlighted = 0 if completions and preselect else None
        self.set_class(bool(completions), "-open")

    def close(self) -> None:
        """Closed for the text it was shown for: it opens again once the text changes, not
        on the next key (which would make the next Esc close it again, never reaching the app)."""
        self.show([], text=self.shown_for)

    def move(self, step: int) -> None:
        if not self.completions:
            return
        if self.highlighted is None:
            self.highlighted = 0 if step > 0 else len(self.completions) - 1
        else:
            self.highlighted = (self.highlighted + step) % len(self.completions)

    @property
    def chosen(self) -> Completion | None:
        if not self.completions or self.highlighted is None:
            return None
        return self.completions[self.highlighted]
