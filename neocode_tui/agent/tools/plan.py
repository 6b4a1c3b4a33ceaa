"""``exit_plan_mode``: in plan mode, the model hands its plan to the user, who decides."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from neocode_tui.agent.tools.base import OutputCallback, Tool, ToolOutput
from neocode_tui.agent.workspace import Workspace

MAX_PLAN = 50_000
"""Characters of a plan: a long one, never an unbounded one."""


class PlanArgs(BaseModel):
    plan: str = Field(min_length=1, max_length=MAX_PLAN)


class ExitPlanMode(Tool[PlanArgs]):
    """Offered only in plan mode; what it answers is the user's decision (``hand_off``)."""

    name = "exit_plan_mode"
    description = (
        "Call this when your plan is ready: the user reads it and either has you carry it out "
        "or asks you to keep planning. plan: the plan in Markdown, concise and numbered."
    )
    kind = "read"
    args_model = PlanArgs

    def __init__(self, hand_off: Callable[[str], Awaitable[ToolOutput]]) -> None:
        self.hand_off = hand_off

    def summary(self, args: Mapping[str, Any]) -> str:
        plan = args.get("plan")
        lines = len(plan.splitlines()) if isinstance(plan, str) else 0
        return f"plan ready ({lines} lines)" if lines else "plan ready"

    async def run(
        self, args: PlanArgs, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput:
        return await self.hand_off(args.plan)
