"""The installed agent Harbor runs: ``harbor run --agent-import-path
neocode_harbor.agent:NeoCode --model openai/gpt-5 ...``. Only Harbor's environment
imports this module (Harbor needs Python 3.12); what it runs is ``commands``'."""

from __future__ import annotations

import os
from pathlib import Path

from harbor.agents.installed.base import BaseInstalledAgent, with_prompt_template
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from harbor.models.trajectories import Trajectory

from neocode_harbor import commands


class NeoCode(BaseInstalledAgent):
    """NeoCode (``neocode -p``) in the task's container, its ATIF trajectory kept."""

    @staticmethod
    def name() -> str:
        return "neocode"

    def get_version_command(self) -> str | None:
        return 'export PATH="$HOME/.local/bin:$PATH"; neocode --version'

    async def install(self, environment: BaseEnvironment) -> None:
        await self.ensure_system_dependencies(environment, ("curl", "git", "bash"))
        await self.exec_as_agent(environment, command=commands.install_command(self._version))

    @with_prompt_template
    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        try:
            await self.exec_as_agent(environment, command=commands.run_command(instruction),
                                     env=commands.run_env(self.model_name, os.environ))
        finally:
            self.populate_context_post_run(context)

    def populate_context_post_run(self, context: AgentContext) -> None:
        for name, value in commands.context_numbers(self.logs_dir).items():
            setattr(context, name, value)

    def convert_trajectory(self, logs_dir: Path) -> Trajectory | None:
        path = logs_dir / commands.TRAJECTORY
        return Trajectory.model_validate_json(path.read_text()) if path.is_file() else None
