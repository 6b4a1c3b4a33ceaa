"""Messages typed while the agent works, shown above the input until they are read: those on
their way into the running turn, and those for after it ("after this")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from textual.content import Content
from textual.widgets import Static

from neocode_tui.terminal_text import visible

Where = Literal["turn", "after"]
"""``turn``: the running turn reads it at its next request; ``after``: sent once it is done."""
HINTS = {
    "turn": "→ the running turn reads it at its next request",
    "after": "after this",
}


@dataclass
class Waiting:
    text: str
    where: Where


class QueuedPrompts(Static):
    """One line per waiting message, oldest first, then the keys; hidden when there is none."""

    DEFAULT_CSS = """
    QueuedPrompts {
        display: none;
        height: auto;
        max-height: 8;
        padding: 0 1;
        color: $text-muted;
    }
    QueuedPrompts.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.waiting: list[Waiting] = []
        self.later_key = "Tab"
        """The key that keeps a message for after this turn (the app sets the user's)."""

    @property
    def prompts(self) -> list[str]:
        """The messages for after this turn, oldest first."""
        return [item.text for item in self.waiting if item.where == "after"]

    def add(self, text: str, where: Where = "after") -> None:
        self.waiting.append(Waiting(text, where))
        self._show()

    def read(self, text: str) -> None:
        """``text`` is no longer on its way into the turn: read, or given back."""
        for item in self.waiting:
            if item.where == "turn" and item.text == text:
                self.waiting.remove(item)
                break
        self._show()

    def newest(self, where: Where) -> Waiting | None:
        return next((item for item in reversed(self.waiting) if item.where == where), None)

    def move(self, item: Waiting, where: Where) -> None:
        item.where = where
        self._show()

    def drop(self, item: Waiting) -> None:
        self.waiting.remove(item)
        self._show()

    def take_first(self) -> str | None:
        item = next((item for item in self.waiting if item.where == "after"), None)
        if item is not None:
            self.drop(item)
        return item.text if item else None

    def take_last(self) -> Waiting | None:
        item = self.waiting.pop() if self.waiting else None
        self._show()
        return item

    def take_all(self) -> list[str]:
        taken, self.waiting = self.waiting, []
        self._show()
        return [item.text for item in taken]

    def _show(self) -> None:
        self.set_class(bool(self.waiting), "-shown")
        lines = [
            Content.assemble(("next turn " if item.where == "turn" else "after this ", "bold $accent"),
                             ("› ", "dim"), _one_line(item.text), (f"  {HINTS[item.where]}", "dim"))
            for item in self.waiting
        ]
        if lines:
            later = f"{self.later_key}: the newest for after this (or back) · " if self.later_key else ""
            hint = f"{later}Up on an empty prompt edits the last"
            lines.append(Content.styled(hint, "dim italic"))
        self.update(Content("\n").join(lines))


def _one_line(text: str) -> str:
    lines = visible(text).strip().splitlines()
    first = lines[0] if lines else ""
    return first + (" …" if len(lines) > 1 else "")
