"""Model Context Protocol servers: their tools join the agent's, as ``mcp__server__tool``."""

from typing import TYPE_CHECKING

from neocode_tui.agent.mcp.manager import McpManager, ServerStatus, UnknownServer, status_text
from neocode_tui.deferred import face

__all__ = [
    "Answer", "CLIENT", "Configs", "HttpServer", "Question", "ServerEntry", "StdioServer", "describe", "load_configs",
    "shown_default", "typed", "McpManager", "ServerStatus", "UnknownServer", "status_text",
]


if TYPE_CHECKING:
    from neocode_tui.agent.mcp.config import (
        CLIENT,
        Configs,
        HttpServer,
        ServerEntry,
        StdioServer,
        describe,
        load_configs,
    )
    from neocode_tui.agent.mcp.elicitation import Answer, Question, shown_default, typed

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "config": ("CLIENT", "Configs", "HttpServer", "ServerEntry", "StdioServer", "describe", "load_configs",),
        "elicitation": ("Answer", "Question", "shown_default", "typed",),
    })
