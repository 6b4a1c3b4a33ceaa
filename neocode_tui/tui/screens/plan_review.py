"""The plan hand-off: in plan mode the model hands over its plan, and the user decides in
one key whether it is carried out (in auto-edit, or asking before each change) or planned
further, with feedback for the model.

a = carry it out in auto-edit, y = carry it out asking, n = keep planning (then the
feedback, Enter sends it), Esc = keep planning without feedback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Markdown, Static

from neocode_tui.agent import PlanDecision, PlanProposed
from neocode_tui.terminal_text import visible
from neocode_tui.tui.screens.approval import ask_with

if TYPE_CHECKING:
    from neocode_tui.tui.conversation import ConversationView

Choice = Literal["auto-edit", "ask", "plan"]
DECIDED = {
    "auto-edit": "plan accepted: carrying it out in auto-edit",
    "ask": "plan accepted: carrying it out, asking before each change",
    "plan": "kept planning",
}
"""What the conversation says of the user's answer."""


class PlanScreen(ModalScreen[PlanDecision]):
    """The plan scrolls between its title and its keys, which stay on screen at any size."""

    DEFAULT_CSS = """
    PlanScreen { align: center middle; }
    PlanScreen > #dialog {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 100%;
        border: thick $accent 80%;
        background: $surface;
        padding: 0 1;
    }
    PlanScreen #title { dock: top; text-style: bold; padding-bottom: 1; }
    PlanScreen #body { height: auto; max-height: 24; background: $panel; }
    PlanScreen #body Markdown { margin: 0; padding: 0 1; background: $panel; }
    PlanScreen #footer { dock: bottom; height: auto; }
    PlanScreen #keys { margin-top: 1; color: $text-muted; }
    PlanScreen #feedback { display: none; margin-top: 1; }
    PlanScreen.-asking-feedback #feedback { display: block; }
    PlanScreen.-asking-feedback #keys { display: none; }
    """

    BINDINGS = [
        Binding("a", "decide('auto-edit')", "Carry out in auto-edit", show=False),
        Binding("y", "decide('ask')", "Carry out, asking", show=False),
        Binding("n", "ask_feedback", "Keep planning", show=False),
        Binding("escape", "decide('plan')", "Keep planning", show=False),
        Binding("up", "scroll(-1)", show=False),
        Binding("down", "scroll(1)", show=False),
        Binding("pageup", "scroll(-10)", show=False),
        Binding("pagedown", "scroll(10)", show=False),
    ]

    def __init__(self, proposed: PlanProposed) -> None:
        super().__init__()
        self.proposed = proposed

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("The plan is ready. Carry it out?", id="title")
            with Vertical(id="footer"):
                yield Static(
                    Content.from_markup(
                        "[b]a[/b] yes, in auto-edit   [b]y[/b] yes, asking before each change   "
                        "[b]n[/b] no, keep planning (with feedback)   [b]esc[/b] keep planning"
                    ),
                    id="keys",
                )
                feedback = Input(placeholder="What should change? Enter sends it to the model",
                                 id="feedback")
                feedback.cursor_blink = getattr(self.app, "blink", True)
                feedback.can_focus = False  # a, y, n are the dialog's until "n" asks for feedback
                yield feedback
            with VerticalScroll(id="body", can_focus=False):
                yield Markdown(visible(self.proposed.plan))

    def action_scroll(self, lines: int) -> None:
        self.query_one("#body", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_decide(self, mode: Choice) -> None:
        self.dismiss(PlanDecision(mode=mode))

    def action_ask_feedback(self) -> None:
        self.add_class("-asking-feedback")
        feedback = self.query_one("#feedback", Input)
        feedback.can_focus = True
        feedback.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(PlanDecision(mode="plan", feedback=event.value.strip()))


async def review(app: App[Any], view: ConversationView, proposed: PlanProposed) -> PlanDecision:
    """The user's answer to ``proposed``; a question closed without one keeps planning."""
    return await ask_with(app, view, PlanScreen(proposed), PlanDecision(mode="plan"))
