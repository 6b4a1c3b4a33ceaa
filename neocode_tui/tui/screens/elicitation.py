"""An MCP server's question as a dialog: its message, a field per value it asks for.

Enter on the last field (or Ctrl+S) sends the answers, Esc declines. The server's words
are shown escaped, never as markup or control sequences; a value that does not fit its
field (a number, a choice) is said under the fields and nothing is sent.
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from neocode_tui.agent.mcp import Answer, Question, shown_default, typed
from neocode_tui.terminal_text import visible
from neocode_tui.tui.screens.dialog import answer_of, dialog_css


class ElicitationScreen(ModalScreen[Answer]):
    DEFAULT_CSS = dialog_css("ElicitationScreen") + """
    ElicitationScreen #fields { height: auto; max-height: 1fr; }
    ElicitationScreen .label { margin-top: 1; }
    ElicitationScreen #problem { color: $error; }
    """
    BINDINGS = [
        Binding("escape", "decline", "decline", show=False),
        Binding("ctrl+s", "send", "send", show=False),
    ]

    def __init__(self, question: Question) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        question = self.question
        with Vertical(id="dialog"):
            yield Static(Content(f"The MCP server {visible(question.server)} asks"), id="title")
            yield Static(Content(visible(question.message)), id="message")
            with VerticalScroll(id="fields"):
                yield from self._fields()
            yield Static("", id="problem")
            keys = "Enter next · Ctrl+S send" if question.fields else "Enter accept"
            yield Static(f"{keys} · Esc decline", id="keys")

    def _fields(self) -> ComposeResult:
        for number, item in enumerate(self.question.fields):
            about = item.title or item.name
            if item.kind == "choices":
                about += f" (some of {', '.join(item.choices)}; commas between)"
            elif item.choices:
                about += f" ({' / '.join(item.choices)})"
            elif item.kind == "boolean":
                about += " (yes / no)"
            if item.required:
                about += " *"
            yield Static(Content(visible(about)), classes="label")
            yield Input(visible(shown_default(item)), placeholder=visible(item.description),
                        id=f"field-{number}")

    def on_mount(self) -> None:
        if self.question.fields:
            self.query_one("#field-0", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        number = int((event.input.id or "field-0").removeprefix("field-"))
        if number + 1 < len(self.question.fields):
            self.query_one(f"#field-{number + 1}", Input).focus()
        else:
            self.action_send()

    def key_enter(self) -> None:
        if not self.question.fields:
            self.action_send()

    def action_send(self) -> None:
        values = {item.name: self.query_one(f"#field-{number}", Input).value
                  for number, item in enumerate(self.question.fields)}
        try:
            content = typed(self.question, values)
        except ValueError as exc:
            self.query_one("#problem", Static).update(Content(str(exc)))
            return
        self.dismiss(Answer("accept", content))

    def action_decline(self) -> None:
        self.dismiss(Answer("decline"))


async def ask_user(app: App[Any], question: Question) -> Answer:
    """The dialog over whatever is on screen; the server waits for its answer."""
    return await answer_of(app, ElicitationScreen(question), Answer("cancel"))
