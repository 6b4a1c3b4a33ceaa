"""A stdio MCP server that tells where and with what it runs, and can be told to die."""

import os

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("mortal")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def ping() -> str:
    """Answers pong."""
    return "pong"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def where() -> str:
    """The server's working folder, and which of LEVEL and OPENAI_API_KEY it was given."""
    given = [name for name in ("LEVEL", "OPENAI_API_KEY") if name in os.environ]
    return f"{os.getcwd()} {given}"


@server.tool()
def die() -> str:
    """Ends the server's process at once."""
    os._exit(1)


if __name__ == "__main__":
    server.run()
