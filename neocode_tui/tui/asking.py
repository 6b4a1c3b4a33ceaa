"""The questions the session asks the user, each as a dialog over the app: a tool call's
approval, a request past the budget, a plan's review, an MCP server's question, the
model's own questions (``ask_user``).

The app owns the screen; this piece only opens the dialogs and shows their outcome, so
it is handed the app (to push screens), the conversation (where a dialog is laid out and
its outcome noted) and the status bar (waiting, allowed for the session).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from textual.app import App

from neocode_tui.deferred import lazy

if TYPE_CHECKING:
    from neocode_tui.agent import ApprovalDecision, ApprovalRequested, PlanDecision, PlanProposed
    from neocode_tui.agent.mcp import Answer, Question
    from neocode_tui.agent.tools import Reply, UserQuestions
    from neocode_tui.tui.conversation import ConversationView
    from neocode_tui.tui.screens import approval, elicitation, plan_review, questions
    from neocode_tui.tui.screens import budget as budget_dialog
    from neocode_tui.tui.widgets import StatusBar
else:  # after the first frame, or on first use (neocode_tui/deferred.py)
    approval = lazy("neocode_tui.tui.screens.approval")
    budget_dialog = lazy("neocode_tui.tui.screens.budget")
    elicitation = lazy("neocode_tui.tui.screens.elicitation")
    plan_review = lazy("neocode_tui.tui.screens.plan_review")
    questions = lazy("neocode_tui.tui.screens.questions")


class Asking:
    """``view`` and ``status`` are called when a question comes: the session may be made
    before the screen's widgets are."""

    def __init__(
        self, app: App[Any], view: Callable[[], ConversationView], status: Callable[[], StatusBar]
    ) -> None:
        self._app = app
        self._view = view
        self._status = status
        self._open = 0

    @contextmanager
    def _waiting(self) -> Iterator[None]:
        """The status bar says "waiting for you" while any question is open: the turn does
        not go on until it is answered (several at once: subagents ask side by side)."""
        status = self._status()
        self._open += 1
        status.waiting = True
        try:
            yield
        finally:
            self._open -= 1
            status.waiting = self._open > 0

    async def approve(self, request: ApprovalRequested) -> ApprovalDecision:
        with self._waiting():
            decision = await approval.ask(self._app, self._view(), request)
        if decision.verdict == "session":
            status = self._status()
            status.allowed = (*status.allowed, request.session_scope)
        return decision

    async def budget(self, question: str) -> bool:
        with self._waiting():
            return await budget_dialog.ask_budget(self._app, question)

    async def elicit(self, question: Question) -> Answer:
        with self._waiting():
            return await elicitation.ask_user(self._app, question)

    async def review_plan(self, proposed: PlanProposed) -> PlanDecision:
        view = self._view()
        with self._waiting():
            decision = await plan_review.review(self._app, view, proposed)
        feedback = f": {decision.feedback}" if decision.feedback else ""
        view.add_notice("info", plan_review.DECIDED[decision.mode] + feedback)
        return decision

    async def ask_questions(self, asked: UserQuestions) -> list[Reply] | None:
        with self._waiting():
            return await questions.ask_questions(self._app, self._view(), asked)
