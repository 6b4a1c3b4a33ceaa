"""The approval modal: the loop waits on it while the rest of the app stays live.

y = yes once, a = yes for this tool for the rest of the session, n = no (then an optional
reason for the model, Enter sends it), Esc = no without a reason.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from neocode_tui.agent.loop_events import ApprovalDecision, ApprovalRequested
from neocode_tui.tui.conversation.palette import Palette
from neocode_tui.tui.conversation.diff import diff_text

class ApprovalScreen(ModalScreen[ApprovalDecision]):
    DEFAULT_CSS = """
    ApprovalScreen {
        align: center middle;
    }
    ApprovalScreen > #dialog {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 90%;
        border: thick $warning 80%;
        background: $surface;
        padding: 0 1;
    }
    ApprovalScreen #title { text-style: bold; margin-bottom: 1; }
    ApprovalScreen #body {
        height: auto;
        max-height: 20;
        background: $panel;
        padding: 0 1;
    }
    ApprovalScreen #keys { margin-top: 1; color: $text-muted; }
    ApprovalScreen #reason { display: none; margin-top: 1; }
    ApprovalScreen.-asking-reason #reason { display: block; }
    ApprovalScreen.-asking-reason #keys { display: none; }
    """

    BINDINGS = [
        Binding("y", "decide('yes')", "Yes", show=False),
        Binding("a", "decide('session')", "Yes for this session", show=False),
        Binding("n", "ask_reason", "No", show=False),
        Binding("escape", "decide('no')", "No", show=False),
    ]

    def __init__(self, request: ApprovalRequested) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="dialog"):
            yield Static(
                Content.assemble("Allow ", (request.name, "bold $accent"), "? ", request.summary),
                id="title",
            )
            with VerticalScroll(id="body"):
                if request.diff:
                    palette = Palette.from_variables(
                        self.app.theme_variables, self.app.current_theme.dark
                    )
                    yield Static(diff_text(request.diff.splitlines(), palette), id="diff")
                elif request.command:
                    yield Static(Content.styled(f"$ {request.command}", "bold"), id="command")
            yield Static(
                Content.from_markup(
                    "[b]y[/b] yes   [b]a[/b] yes to [i]$name[/i] for this session   "
                    "[b]n[/b] no (with a reason)   [b]esc[/b] no",
                    name=request.name,
                ),
                id="keys",
            )
            reason = Input(placeholder="Why not? Enter sends it to the model (empty: no reason)", id="reason")
            reason.cursor_blink = getattr(self.app, "blink", True)
            yield reason

    def action_decide(self, verdict: str) -> None:
        self.dismiss(ApprovalDecision(verdict=verdict))

    def action_ask_reason(self) -> None:
        self.add_class("-asking-reason")
        self.query_one("#reason", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(ApprovalDecision(verdict="no", reason=event.value.strip()))
