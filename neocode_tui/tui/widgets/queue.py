"""Messages typed while the agent works, shown above the input until their turn comes."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from neocode_tui.terminal_text import visible


class QueuedPrompts(Static):
    """One line per queued message, oldest first; hidden when there is none."""

    DEFAULT_CSS = """
    QueuedPrompts {
        display: none;
        height: auto;
        max-height: 6;
        padding: 0 1;
        color: $text-muted;
    }
    QueuedPrompts.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.prompts: list[str] = []

    def add(self, text: str) -> None:
        self.prompts.append(text)
        self._show()

    def take_first(self) -> str | None:
        text = self.prompts.pop(0) if self.prompts else None
        self._show()
        return text

    def take_last(self) -> str | None:
        text = self.prompts.pop() if self.prompts else None
        self._show()
        return text

    def take_all(self) -> list[str]:
        prompts, self.prompts = self.prompts, []
        self._show()
        return prompts

    def _show(self) -> None:
        self.set_class(bool(self.prompts), "-shown")
        lines = [
            Content.assemble(("queued ", "bold $accent"), ("› ", "dim"), _one_line(text))
            for text in self.prompts
        ]
        if lines:
            hint = "sent when the agent is done · Up on an empty prompt edits the last"
            lines.append(Content.styled(hint, "dim italic"))
        self.update(Content("\n").join(lines))


def _one_line(text: str) -> str:
    lines = visible(text).strip().splitlines()
    first = lines[0] if lines else ""
    return first + (" …" if len(lines) > 1 else "")
