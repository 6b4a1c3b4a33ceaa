"""What a front end gives a session: where its events go and who answers its questions.

The app, headless runs and ACP each build one ``FrontEnd`` and hand it to ``AgentSession``
as it is made; the session passes each part to the piece that needs it, so no front end
reaches into the session's parts. A part left out is a question nobody is there to answer:
approvals are refused, MCP questions declined, the budget stops the run, a plan is the
run's answer, the model's questions are refused with a reason it can act on.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from neocode_tui.agent.loop_events import LoopEvent, PlanDecision, PlanProposed
from neocode_tui.agent.permissions import Approver
from neocode_tui.agent.tools.ask import Asker

if TYPE_CHECKING:
    from neocode_tui.agent.mcp.elicitation import Elicitor  # a server's question: its module waits for one

Listener = Callable[[LoopEvent], None]
BudgetQuestion = Callable[[str], Awaitable[bool]]
"""Asks the user to go past the spending limit (the question's words); True: go on."""
PlanReview = Callable[[PlanProposed], Awaitable[PlanDecision]]


@dataclass(frozen=True)
class FrontEnd:
    listener: Listener | None = None
    """Told every event of the session, as it happens."""
    approver: Approver | None = None
    """Asked about each call that needs a yes."""
    elicitor: Elicitor | None = None
    """Asks the user an MCP server's question."""
    ask: BudgetQuestion | None = None
    """Asks whether to go past ``max_budget_usd``."""
    plan_review: PlanReview | None = None
    """Shows a plan mode's plan to the user, who picks the mode to carry it out in."""
    questions: Asker | None = None
    """Puts the model's ``ask_user`` questions to the user."""
    open_url: Callable[[str], None] | None = None
    """Opens a page (an MCP server's sign-in) in the user's browser."""
    stop_key: Callable[[], str] = lambda: "Esc"
    """The key that stops a run, as the user has it now (hints name it)."""


NOBODY = FrontEnd()
"""No front end: nobody sees the events or answers a question (a demo, a benchmark)."""
