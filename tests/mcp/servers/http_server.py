"""A streamable-HTTP MCP server built with the SDK's MCPServer, for the tests.

Run as ``python -m tests.mcp.servers.http_server``: it binds 127.0.0.1 on a free port,
prints the port on its first line once it accepts connections, then serves ``/mcp`` until killed.
"""

from __future__ import annotations

import asyncio
import socket
import sys

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import ToolAnnotations

server = MCPServer("test-http")
PNG_BYTES = 12 * 1024


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def count(steps: int, ctx: Context) -> str:
    """Count up to ``steps``, reporting progress at each step."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
        await asyncio.sleep(0.05)
    return f"counted to {steps}"


@server.tool()
def explode(reason: str) -> str:
    """Always fails, saying why."""
    raise ToolError(f"exploded: {reason}")


@server.tool()
async def hang(ctx: Context) -> str:
    """Says it has started, then never answers."""
    await ctx.report_progress(0, None, "hanging")
    await asyncio.sleep(3600)
    return "unreachable"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def big(chars: int) -> str:
    """``chars`` characters of text."""
    return "x" * chars


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def picture() -> Image:
    """A 12 KB PNG."""
    return Image(data=b"\x89PNG\r\n\x1a\n" + b"\0" * (PNG_BYTES - 8), format="png")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def whoami(ctx: Context) -> str:
    """The Authorization header this request came with."""
    headers = ctx.headers or {}
    return f"authorization: {headers.get('authorization', '(none)')}"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Returns ``text``."""
    return text


def main() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    # Listening before the port is told: a client that connects at once waits in the backlog
    # until uvicorn accepts, instead of being refused while uvicorn is still starting.
    sock.listen()
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
