"""Which MCP tools a request offers the model: bounded in number and size, chosen the same
way every time.

Every tool definition goes into every request, so a server listing 5,000 tools would make
each request megabytes long, and OpenAI refuses more than 128 tools at all. The tools of
the connected servers are taken in turns, one per server in the configured order, each
server's in the order it listed them, until the room left by the built-in tools or the
size budget is used up: a server with thousands of tools cannot crowd out one with three,
and the same servers give the same tools (and the same request prefix, which providers
cache). What is left out is counted per server, for the user to be told.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from neocode_tui.agent.tools import MAX_TOOLS

if TYPE_CHECKING:
    from neocode_tui.agent.mcp.tool import McpTool

SPECS_BUDGET = 250_000
"""Characters of MCP tool definitions in one request (about 60,000 tokens)."""


@dataclass
class Offer:
    tools: list[McpTool] = field(default_factory=list)
    """Grouped by server, in the configured order."""
    left_out: dict[str, int] = field(default_factory=dict)
    """Per server: usable tools that did not fit."""


def choose(
    servers: Sequence[tuple[str, Sequence[McpTool]]], room: int, budget: int = SPECS_BUDGET
) -> Offer:
    """At most ``room`` of the servers' usable tools, ``budget`` characters of definitions
    in all; a tool that does not fit the size left is passed over for smaller ones."""
    usable = [(name, [tool for tool in tools if tool.refused is None]) for name, tools in servers]
    chosen: dict[str, list[McpTool]] = {name: [] for name, _ in usable}
    count, size = 0, 0
    for rank in range(max((len(tools) for _, tools in usable), default=0)):
        if count >= room:
            break
        for name, tools in usable:
            if rank < len(tools) and count < room and size + tools[rank].spec_chars <= budget:
                chosen[name].append(tools[rank])
                count, size = count + 1, size + tools[rank].spec_chars
    return Offer(
        [tool for name, _ in usable for tool in chosen[name]],
        {name: len(tools) - len(chosen[name]) for name, tools in usable if len(tools) > len(chosen[name])},
    )


def left_out_text(server: str, listed: int, over: int, refused: Sequence[McpTool]) -> str:
    """What a user is told about a server whose tools are not all offered."""
    offered = listed - over - len(refused)
    parts = []
    if over:
        parts.append(
            f"{over:,} left out (a request offers at most {MAX_TOOLS} tools, built-in ones "
            f"included, and {SPECS_BUDGET:,} characters of MCP tool definitions)"
        )
    if refused:
        shown = "; ".join(f"{tool.shown_name}: {tool.refused}" for tool in refused[:3])
        more = f"; {len(refused) - 3:,} more" if len(refused) > 3 else ""
        parts.append(f"{len(refused):,} not usable ({shown}{more})")
    return (
        f"MCP server {server!r}: {offered:,} of its {listed:,} tools are offered to the model, "
        f"{' and '.join(parts)}; /mcp lists them"
    )

