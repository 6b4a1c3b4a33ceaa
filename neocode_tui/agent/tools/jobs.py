"""``bash_output`` and ``kill_bash``: reading and stopping the background commands.

Neither asks for approval: they only read or stop what an approved ``bash`` call started.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from neocode_tui.agent.processes import BackgroundJobs, JobNotFound
from neocode_tui.agent.tools.base import OutputCallback, Tool, ToolError, ToolOutput
from neocode_tui.agent.workspace import Workspace


class JobArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str


class _JobTool(Tool[JobArgs]):
    kind = "read"
    args_model = JobArgs

    def __init__(self, jobs: BackgroundJobs) -> None:
        self.jobs = jobs

    def summary(self, args: Mapping[str, Any]) -> str:
        return str(args.get("id", ""))


class BashOutput(_JobTool):
    name = "bash_output"
    description = "Output of a background bash command (by id) since the last read; its exit code once ended."

    async def run(
        self, args: JobArgs, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput:
        try:
            return ToolOutput(self.jobs.get(args.id).read())
        except JobNotFound as exc:
            raise ToolError(str(exc)) from None


class KillBash(_JobTool):
    name = "kill_bash"
    description = "Stop a background bash command (by id) and all it started."

    async def run(
        self, args: JobArgs, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput:
        try:
            job = self.jobs.get(args.id)
            was = job.status
            await self.jobs.kill(args.id, "kill_bash")
        except JobNotFound as exc:
            raise ToolError(str(exc)) from None
        if was != "running":
            return ToolOutput(f"{job.id} had already ended ({was})")
        job.told = True
        return ToolOutput(f"stopped {job.id}; its last output:\n{job.read()}")
