"""Model Context Protocol servers: their tools join the agent's, as ``mcp__server__tool``."""

from neocode_tui.agent.mcp.manager import McpManager, ServerStatus, UnknownServer, status_text

__all__ = ["McpManager", "ServerStatus", "UnknownServer", "status_text"]
