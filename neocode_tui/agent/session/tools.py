"""The tools whose state is the session's: the task list (``todo_write``) and the plan
hand-off (``exit_plan_mode``, offered in plan mode only).

A tool source, so every front end's registry gets them, and the plan tool comes and goes
with the mode. The hand-off asks the front end's ``plan_approver``; where there is none
(headless), the plan is the run's answer and the run ends there.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

from neocode_tui.agent.loop_events import (
    LoopEvent,
    ModeChanged,
    PlanDecision,
    PlanProposed,
    TodosChanged,
    ToolStarted,
)
from neocode_tui.agent.session.todos import Todo
from neocode_tui.agent.tools.base import Tool, ToolOutput
from neocode_tui.agent.tools.plan import ExitPlanMode
from neocode_tui.agent.tools.todo import TodoWrite
from neocode_tui.vocabulary import MODE_DESCRIPTIONS, ApprovalMode

PlanApprover = Callable[[PlanProposed], Awaitable[PlanDecision]]

NOT_PLANNING = (
    "not in plan mode: there is no plan to hand over; go on with the task (the user left plan "
    "mode already)"
)
HANDED_OVER = "The plan was handed to the user, who will decide on it; stop here."


class ToolsHost(Protocol):
    """The session whose task list and plan these are."""

    approval: ApprovalMode
    """Read to offer the plan tool in plan mode only; set as a plan is carried out."""

    @property
    def turn(self) -> int: ...

    def emit(self, event: LoopEvent) -> None: ...


class SessionTools:
    """A tool source of two tools: it takes two places of the registry's room at most."""

    def __init__(
        self, host: ToolsHost, *, scrub: Callable[[str], str],
        store: Callable[[list[Todo]], None], plan_approver: PlanApprover | None = None,
        on_ask: Callable[[], None] = lambda: None,
    ) -> None:
        """``plan_approver``: the front end's question about a plan (None: nobody is there
        to answer); ``on_ask``: told as the user is asked about one (Notification hooks)."""
        self._room = 0
        self._host = host
        self._scrub, self._store = scrub, store
        self.todos: list[Todo] = []
        """The agent's task list as it last set it."""
        self._plan_approver, self._on_ask = plan_approver, on_ask
        self._todo = TodoWrite(self._todos_changed)
        self._plan = ExitPlanMode(self._hand_off)
        self._call: ToolStarted | None = None

    @property
    def room(self) -> int:
        return self._room

    @room.setter
    def room(self, room: int) -> None:
        """What is left for the sources after this one (MCP's) is counted from what it keeps."""
        self._room = min(room, 2)

    def tools(self) -> Iterable[Tool[Any]]:
        offered: list[Tool[Any]] = [self._todo]
        if self._host.approval == "plan":
            offered.append(self._plan)
        return offered[: self.room]

    def find(self, name: str) -> Tool[Any] | None:
        return {tool.name: tool for tool in (self._todo, self._plan)}.get(name)

    def seen(self, event: LoopEvent) -> None:
        """Told every event: the plan call about to run is the one the question is about."""
        if isinstance(event, ToolStarted) and event.name == self._plan.name:
            self._call = event

    def set_todos(self, todos: list[Todo], *, save: bool = True) -> None:
        """The list is ``todos`` (a resumed session's, a cleared one's none); front ends hear
        of a change."""
        if todos == self.todos:
            return
        self.todos = todos
        if save:
            self._store(todos)
        self._host.emit(TodosChanged(turn=self._host.turn, todos=todos))

    def _todos_changed(self, todos: list[Todo]) -> None:
        # What the model wrote may quote a key it read: scrubbed before anyone sees or saves it.
        self.set_todos([todo.model_copy(update={"content": self._scrub(todo.content)}) for todo in todos])

    async def _hand_off(self, plan: str) -> ToolOutput:
        if self._host.approval != "plan":
            return ToolOutput(NOT_PLANNING, is_error=True)
        call = self._call
        proposed = PlanProposed(
            turn=self._host.turn, index=call.index if call else 0, call_id=call.call_id if call else "",
            plan=self._scrub(plan),
        )
        self._host.emit(proposed)
        if self._plan_approver is None:
            return ToolOutput(HANDED_OVER, final=proposed.plan)
        self._on_ask()
        decision = await self._plan_approver(proposed)
        if decision.mode == "plan":
            feedback = decision.feedback.strip()
            return ToolOutput(
                "The user wants to keep planning: plan mode stays on"
                + (f". Their feedback: {feedback}" if feedback else "")
                + ". Revise the plan and call exit_plan_mode again when it is ready."
            )
        self._host.approval = decision.mode
        self._host.emit(ModeChanged(turn=self._host.turn, mode=decision.mode))
        return ToolOutput(
            f"The user approved the plan. The mode is now {decision.mode} "
            f"({MODE_DESCRIPTIONS[decision.mode]}). Carry out the plan now."
        )
