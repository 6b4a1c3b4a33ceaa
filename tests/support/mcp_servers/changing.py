"""A stdio MCP server whose lists change: calling ``grow`` adds the tool ``grown`` and the
prompt ``fresh``, then tells the client both lists changed (``notifications/tools/list_changed``
and ``notifications/prompts/list_changed`` on a handshake-era connection, the same events on a
``subscriptions/listen`` stream on a 2026-07-28 one).

``python changing.py legacy`` offers only the handshake era (as most servers in use do), so
the client falls back to ``initialize`` and gets the notifications.
"""

import sys

import anyio
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts import Prompt
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp_types import ToolAnnotations

server = MCPServer("changing")


def grown() -> str:
    """Answers that it was added while the server ran."""
    return "grown and answering"


def fresh() -> str:
    """A prompt the server added while it ran."""
    return "Say something fresh."


@server.prompt()
def steady() -> str:
    """A prompt the server has from the start."""
    return "Say something steady."


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def grow(ctx: Context) -> str:
    """Adds the tool grown and the prompt fresh."""
    server.add_tool(grown, annotations=ToolAnnotations(read_only_hint=True))
    server.add_prompt(Prompt.from_function(fresh))
    await ctx.session.send_tool_list_changed()
    await ctx.session.send_prompt_list_changed()
    await ctx.notify_tools_changed()
    await ctx.notify_prompts_changed()
    return "added the tool grown and the prompt fresh"


async def handshake_only() -> None:
    """Serve the handshake era alone, the way the SDK's streamable-HTTP manager does."""
    lowlevel = server._lowlevel_server  # the SDK offers no switch on MCPServer for this
    changes = NotificationOptions(tools_changed=True, prompts_changed=True)
    async with stdio_server() as (read, write), lowlevel.lifespan(lowlevel) as state:
        await serve_loop(lowlevel, read, write, lifespan_state=state,
                         init_options=lowlevel.create_initialization_options(changes))


if __name__ == "__main__":
    if sys.argv[1:] == ["legacy"]:
        anyio.run(handshake_only)
    else:
        server.run()
