"""A streamable-HTTP MCP server built with the SDK's MCPServer, for the tests.

Run as ``python -m tests.support.mcp_servers.http_server [RECORD]``: it binds 127.0.0.1 on a free
port, prints the port on its first line once it accepts connections, then serves ``/mcp`` until killed. With ``RECORD``,
each request's path, query and headers are appended to that file as a JSON line, before
anything else sees them.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from typing import Any

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
def photo() -> Image:
    """A real 2400x1200 PNG: blue, its left half yellow."""
    import io

    from PIL import Image as PIL

    picture = PIL.new("RGB", (2400, 1200), (20, 40, 220))
    picture.paste((250, 220, 10), (0, 0, 1200, 1200))
    out = io.BytesIO()
    picture.save(out, "PNG")
    return Image(data=out.getvalue(), format="png")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def whoami(ctx: Context) -> str:
    """The Authorization header this request came with."""
    headers = ctx.headers or {}
    return f"authorization: {headers.get('authorization', '(none)')}"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Returns ``text``."""
    return text


def recording(app: Any, path: str) -> Any:
    """``app``, with every request's target and headers written to ``path`` first."""

    async def record(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            seen = {
                "path": scope["path"], "query": scope["query_string"].decode("latin-1"),
                "headers": {name.decode("latin-1"): value.decode("latin-1")
                            for name, value in scope["headers"]},
            }
            with open(path, "a", encoding="utf-8") as log:
                log.write(json.dumps(seen) + "\n")
        await app(scope, receive, send)

    return record


def main() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # before the port is told: a client may connect before uvicorn is up
    print(sock.getsockname()[1], flush=True)
    app = server.streamable_http_app()
    if len(sys.argv) > 1:
        app = recording(app, sys.argv[1])
    config = uvicorn.Config(app, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
