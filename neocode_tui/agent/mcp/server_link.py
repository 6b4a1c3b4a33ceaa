"""What a server's tools, prompts and resources need of the connection they came from, and
the states a connection goes through: a leaf, so the connection that makes them and the
manager that holds it are imported by neither."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    import mcp_types

    from neocode_tui.agent.tools.base import OutputCallback, ToolOutput

State = Literal["not started", "connecting", "connected", "failed", "stopped", "needs sign-in"]


class ServerLink(Protocol):
    """One connected MCP server, as what it offers sees it."""

    name: str
    resources: list[mcp_types.Resource]

    async def call(self, tool: str, arguments: dict[str, Any], on_output: OutputCallback | None) -> ToolOutput: ...

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> mcp_types.GetPromptResult: ...

    async def read_resource(self, uri: str) -> mcp_types.ReadResourceResult: ...
