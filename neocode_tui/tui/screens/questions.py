"""The model's ``ask_user`` questions as a dialog, one question at a time.

1-6 pick an option (in a multi-select question they tick it, Enter goes on), o types an
answer of one's own (Enter takes it), Backspace goes back a question, Esc closes without
answering. The model's words are shown escaped, never as markup or control sequences.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from neocode_tui.agent.tools import Reply, UserQuestions
from neocode_tui.terminal_text import visible
from neocode_tui.tui.screens.approval import ask_with
from neocode_tui.tui.screens.dialog import dialog_css

if TYPE_CHECKING:
    from neocode_tui.tui.conversation import ConversationView


class QuestionsScreen(ModalScreen["list[Reply] | None"]):
    DEFAULT_CSS = dialog_css("QuestionsScreen") + """
    QuestionsScreen > #dialog { border: thick $accent 80%; }
    QuestionsScreen #question { text-style: bold; }
    QuestionsScreen #options { margin-top: 1; height: auto; }
    QuestionsScreen #other { display: none; margin-top: 1; }
    QuestionsScreen.-typing #other { display: block; }
    """
    BINDINGS = [
        Binding("escape", "close", "close", show=False),
        Binding("enter", "next", "next", show=False),
        Binding("o", "type_own", "own answer", show=False),
        Binding("backspace", "back", "back", show=False),
    ]

    def __init__(self, asked: UserQuestions) -> None:
        super().__init__()
        self.asked = asked
        self.at = 0
        """The question on screen."""
        self.replies = [Reply() for _ in asked.questions]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(id="title")
            yield Static(id="question")
            yield Static(id="options")
            own = Input(placeholder="Your own answer; Enter takes it, Esc goes back", id="other")
            own.cursor_blink = getattr(self.app, "blink", True)
            own.can_focus = False  # the keys are the dialog's until o asks for an answer
            yield own
            yield Static(id="keys")

    def on_mount(self) -> None:
        self._show()

    @property
    def _question(self) -> Any:
        return self.asked.questions[self.at]

    def _show(self) -> None:
        question, reply = self._question, self.replies[self.at]
        count = len(self.asked.questions)
        where = f" · {self.at + 1} of {count}" if count > 1 else ""
        tag = f" · {visible(question.header)}" if question.header else ""
        self.query_one("#title", Static).update(Content(f"The agent asks{where}{tag}"))
        self.query_one("#question", Static).update(Content(visible(question.question)))
        rows = []
        for number, option in enumerate(question.options, 1):
            ticked = option.label in reply.picked
            mark = ("[x] " if ticked else "[ ] ") if question.multiSelect else ""
            about = f"  {visible(option.description)}" if option.description else ""
            rows.append(Content.assemble((f" {number} ", "bold $accent"), " ", mark,
                                         (visible(option.label), "bold" if ticked else ""), (about, "dim")))
        own = f": {visible(reply.other)}" if reply.other else ": type your own answer"
        rows.append(Content.assemble((" o ", "bold $accent"), " ", ("Other", "bold" if reply.other else ""),
                                     (own, "dim")))
        self.query_one("#options", Static).update(Content("\n").join(rows))
        last = len(question.options)
        pick = f"1-{last} tick · enter {'send' if self._last else 'next'}" if question.multiSelect else f"1-{last} pick"
        back = " · backspace back" if self.at else ""
        self.query_one("#keys", Static).update(Content.from_markup(
            "[b]$pick[/b] · [b]o[/b] own answer$back · [b]esc[/b] close without answering",
            pick=pick, back=back))

    @property
    def _last(self) -> bool:
        return self.at == len(self.asked.questions) - 1

    def on_key(self, event: events.Key) -> None:
        if self.has_class("-typing") or not event.character or not event.character.isdigit():
            return
        number = int(event.character)
        options = self._question.options
        if not 1 <= number <= len(options):
            return
        event.stop()
        label, reply = options[number - 1].label, self.replies[self.at]
        if not self._question.multiSelect:
            self.replies[self.at] = Reply((label,))
            self.action_next()
            return
        picked = tuple(p for p in reply.picked if p != label) if label in reply.picked else (*reply.picked, label)
        self.replies[self.at] = Reply(picked, reply.other)
        self._show()

    def action_next(self) -> None:
        if self.has_class("-typing"):
            return
        reply = self.replies[self.at]
        if not reply.picked and not reply.other:
            return  # nothing picked yet: Enter waits for an answer
        if self._last:
            self.dismiss(self.replies)
            return
        self.at += 1
        self._show()

    def action_back(self) -> None:
        if not self.has_class("-typing") and self.at:
            self.at -= 1
            self._show()

    def action_type_own(self) -> None:
        own = self.query_one("#other", Input)
        self.add_class("-typing")
        own.can_focus = True
        own.value = self.replies[self.at].other
        own.focus()

    def _stop_typing(self) -> None:
        own = self.query_one("#other", Input)
        self.remove_class("-typing")
        own.can_focus = False
        self.set_focus(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text, reply = event.value.strip(), self.replies[self.at]
        self._stop_typing()
        if self._question.multiSelect:
            self.replies[self.at] = Reply(reply.picked, text)
            self._show()
            return
        if text:
            self.replies[self.at] = Reply((), text)
            self.action_next()
        else:
            self._show()

    def action_close(self) -> None:
        if self.has_class("-typing"):
            self._stop_typing()
            self._show()
            return
        self.dismiss(None)


async def ask_questions(app: App[Any], view: ConversationView, asked: UserQuestions) -> list[Reply] | None:
    """The user's replies, or None when they closed the dialog (or the run was stopped)."""
    return await ask_with(app, view, QuestionsScreen(asked), None)
