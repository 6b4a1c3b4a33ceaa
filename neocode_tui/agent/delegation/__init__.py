"""Subagents: agent files, the provider each runs on, and ``task``, which runs one."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.delegation.agent_files import AgentCatalog, agents_text, load_agents
    from neocode_tui.agent.delegation.agent_providers import AgentProviders
    from neocode_tui.agent.delegation.spent import spent_tokens
    from neocode_tui.agent.delegation.subagents import Subagents, TaskTool

__all__ = [
    "AgentCatalog",
    "AgentProviders",
    "Subagents",
    "TaskTool",
    "agents_text",
    "load_agents",
    "spent_tokens",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "agent_files": ("AgentCatalog", "agents_text", "load_agents"),
        "agent_providers": ("AgentProviders",),
        "spent": ("spent_tokens",),
        "subagents": ("Subagents", "TaskTool",),
    })
