"""A stdio MCP server that can be told to die mid-session."""

import os

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("mortal")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def ping() -> str:
    """Answers pong."""
    return "pong"


@server.tool()
def die() -> str:
    """Ends the server's process at once."""
    os._exit(1)


if __name__ == "__main__":
    server.run()
