"""The approval modal: the loop waits on it while the rest of the app stays live.

y = yes once, a = yes for this tool for the rest of the session, n = no (then an optional
reason for the model, Enter sends it), Esc = no without a reason. For a simple command,
p = always allow commands starting with its program (``npm test``), then where to keep
the rule: u = the user's config, w = this project, s = this session only.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from neocode_tui.agent import ApprovalDecision, ApprovalRequested, Verdict
from neocode_tui.terminal_text import visible
from neocode_tui.tui.conversation.diff import diff_of
from neocode_tui.tui.conversation.palette import Palette
from neocode_tui.tui.screens.dialog import answer_of

if TYPE_CHECKING:
    from neocode_tui.tui.conversation import ConversationView

T = TypeVar("T")


class ApprovalScreen(ModalScreen[ApprovalDecision]):
    """At any terminal size the question and its keys stay on screen: the diff or command
    between them scrolls (arrows, PageUp/PageDown, Home/End), with its position shown."""

    DEFAULT_CSS = """
    ApprovalScreen {
        align: center middle;
    }
    ApprovalScreen > #dialog {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 100%;
        border: thick $warning 80%;
        background: $surface;
        padding: 0 1;
    }
    ApprovalScreen #title { dock: top; text-style: bold; padding-bottom: 1; }
    ApprovalScreen #body {
        height: auto;
        max-height: 20;
        background: $panel;
        padding: 0 1;
    }
    ApprovalScreen #footer { dock: bottom; height: auto; }
    ApprovalScreen #position { display: none; color: $text-muted; text-align: right; }
    ApprovalScreen #keys { margin-top: 1; color: $text-muted; }
    ApprovalScreen #reason { display: none; margin-top: 1; }
    ApprovalScreen.-asking-reason #reason { display: block; }
    ApprovalScreen.-asking-reason #keys { display: none; }
    ApprovalScreen #where { display: none; margin-top: 1; }
    ApprovalScreen.-asking-where #where { display: block; }
    ApprovalScreen.-asking-where #keys { display: none; }
    """

    BINDINGS = [
        Binding("y", "decide('yes')", "Yes", show=False),
        Binding("a", "decide('session')", "Yes for this session", show=False),
        Binding("n", "ask_reason", "No", show=False),
        Binding("escape", "decide('no')", "No", show=False),
        Binding("p", "always", "Always allow commands starting so", show=False),
        Binding("u", "save('user')", show=False),
        Binding("w", "save('project')", show=False),
        Binding("s", "save('')", show=False),
        Binding("up", "scroll(-1)", show=False),
        Binding("down", "scroll(1)", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
        Binding("home", "edge(0)", show=False),
        Binding("end", "edge(1)", show=False),
    ]

    def __init__(self, request: ApprovalRequested) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="dialog"):
            yield Static(
                Content.assemble(
                    *(("the ", (visible(request.agent), "bold $accent"), " agent asks: ")
                       if request.agent else ()),
                    "Allow ", (visible(request.name), "bold $accent"), "? ", visible(request.summary)
                ),
                id="title",
            )
            with Vertical(id="footer"):
                yield Static(id="position")
                yield Static(
                    Content.from_markup(
                        "[b]y[/b] yes   [b]a[/b] yes to [i]$scope[/i] for this session   "
                        "[b]n[/b] no (with a reason)   [b]esc[/b] no" + (
                            "\n[b]p[/b] always allow commands starting with [i]$prefix[/i]"
                            if request.prefix_rule else ""),
                        scope=_scope_words(request),
                        prefix=self._prefix,
                    ),
                    id="keys",
                )
                if request.prefix_rule:
                    yield Static(
                        Content.from_markup(
                            "Always allow commands starting with [b]$prefix[/b]: [b]u[/b] save in your "
                            "config   [b]w[/b] save in this project   [b]s[/b] this session only   "
                            "[b]esc[/b] back",
                            prefix=self._prefix,
                        ),
                        id="where",
                    )
                reason = Input(
                    placeholder="Why not? Enter sends it to the model (empty: no reason)", id="reason"
                )
                reason.cursor_blink = getattr(self.app, "blink", True)
                reason.can_focus = False  # y, a, n are the dialog's until "n" asks for a reason
                yield reason
            with VerticalScroll(id="body", can_focus=False):
                if request.diff:
                    palette = Palette.from_variables(
                        self.app.theme_variables, self.app.current_theme.dark
                    )
                    yield Static(diff_of(request.diff, palette), id="diff")
                elif request.command:
                    yield Static(Content.styled(f"$ {visible(request.command)}", "bold"), id="command")

    def on_mount(self) -> None:
        body = self.query_one("#body", VerticalScroll)
        self.watch(body, "scroll_y", lambda _: self._show_position(), init=False)
        self.call_after_refresh(self._show_position)

    def on_resize(self) -> None:
        self.call_after_refresh(self._show_position)

    def _show_position(self) -> None:
        """Lines shown of how many, once the diff or command is taller than its room."""
        body = self.query_one("#body", VerticalScroll)
        total, shown = body.virtual_size.height, body.scrollable_content_region.height
        position = self.query_one("#position", Static)
        position.display = 0 < shown < total
        if position.display:
            first = round(body.scroll_y) + 1
            last = min(first + shown - 1, total)
            position.update(f"lines {first}–{last} of {total} · ↑↓ PgUp PgDn to scroll")

    def action_scroll(self, lines: int) -> None:
        self.query_one("#body", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_page(self, direction: int) -> None:
        body = self.query_one("#body", VerticalScroll)
        body.scroll_relative(y=direction * max(body.scrollable_content_region.height - 1, 1), animate=False)

    def action_edge(self, end: int) -> None:
        body = self.query_one("#body", VerticalScroll)
        if end:
            body.scroll_end(animate=False)
        else:
            body.scroll_home(animate=False)

    @property
    def _prefix(self) -> str:
        """``npm test`` of the offered rule ``bash(npm test:*)``."""
        return visible(self.request.prefix_rule.removeprefix("bash(").removesuffix(":*)"))

    def action_decide(self, verdict: Verdict) -> None:
        if self.has_class("-asking-where"):  # esc: back to the question
            self.remove_class("-asking-where")
            return
        self.dismiss(ApprovalDecision(verdict=verdict))

    def action_always(self) -> None:
        if self.request.prefix_rule and not self.has_class("-asking-reason"):
            self.add_class("-asking-where")

    def action_save(self, where: str) -> None:
        if not self.has_class("-asking-where"):
            return
        save_to: Literal["user", "project"] | None = "user" if where == "user" else (
            "project" if where == "project" else None)
        self.dismiss(ApprovalDecision(verdict="yes", rule=self.request.prefix_rule, save_to=save_to))

    def action_ask_reason(self) -> None:
        self.add_class("-asking-reason")
        reason = self.query_one("#reason", Input)
        reason.can_focus = True
        reason.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(ApprovalDecision(verdict="no", reason=event.value.strip()))


async def ask(app: App[Any], view: ConversationView, request: ApprovalRequested) -> ApprovalDecision:
    """Show the modal over the conversation as it is now and wait for its answer; the app
    keeps drawing meanwhile. A question still open when the run is interrupted closes."""
    return await ask_with(app, view, ApprovalScreen(request), ApprovalDecision(verdict="no"))


async def ask_with(app: App[Any], view: ConversationView, screen: ModalScreen[T], otherwise: T) -> T:
    """``screen``'s answer (``otherwise`` when it closes without one), over the
    conversation as it is now."""
    await _laid_out(app, view)
    return await answer_of(app, screen, otherwise)


async def _laid_out(app: App[Any], view: ConversationView) -> None:
    """Wait until the conversation's latest state is on screen, scrollbar included.

    A screen under a modal is not drawn again until the modal closes, so what it shows
    when the modal opens stays. A scrollbar that appeared after the last scroll still
    shows offset 0 (Textual syncs its thumb only when the offset changes): sync it.
    """
    await view.settled()
    view.vertical_scrollbar.position = round(view.scroll_y)
    drawn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    app.call_after_refresh(lambda: None if drawn.done() else drawn.set_result(None))
    await drawn


def _scope_words(request: ApprovalRequested) -> str:
    """What a yes for the session covers, in short: a longer command allowed only word for
    word (one with shell operators, or through a wrapper) is the one shown above, not
    repeated whole; a program's scope is at most three words (``python -m pytest``)."""
    scope = request.session_scope.removeprefix(f"{request.name}: ") or request.name
    if request.command and scope == " ".join(request.command.split()) and len(scope.split()) > 3:
        return "this exact command"
    return visible(scope)
