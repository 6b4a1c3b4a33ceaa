"""An MCP server's tool as a NeoCode ``Tool``: same approvals, live panel and result path.

Its name is ``mcp__server__tool`` (the providers allow letters, digits, ``_`` and ``-``,
64 at most); its parameters are the server's own input schema; it asks for approval as a
command unless the server marks it read-only.

A server's text goes into every request, so it is bounded here: a long description is cut,
and a tool that cannot be offered as it is (a huge schema or name, or one that only runs as
an MCP task, which this client does not support) is kept with the reason, for ``/mcp`` to
show, and never offered: offering it would only have it fail after the user said yes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, RootModel

from neocode_tui.agent.mcp.config import safe_name
from neocode_tui.agent.tools.base import OutputCallback, Tool, ToolKind, ToolOutput
from neocode_tui.agent.workspace import Workspace
from neocode_tui.chat import ToolSpec

if TYPE_CHECKING:
    import mcp_types

    from neocode_tui.agent.mcp.server_link import ServerLink

MAX_NAME = 64
SUMMARY_CHARS = 160
MAX_DESCRIPTION = 2_000
"""Characters of a tool's description sent to the model; the rest is cut."""
MAX_SCHEMA = 20_000
"""Characters of a tool's input schema (as JSON); a tool with a larger one is not offered."""
MAX_REMOTE_NAME = 128
"""The longest tool name the MCP specification allows."""


class McpArgs(RootModel[dict[str, Any]]):
    """Any JSON object: the server checks the arguments against its schema itself."""

    model_config = ConfigDict(defer_build=True)


def tool_name(server: str, tool: str) -> str:
    """``mcp__server__tool``, made safe for every provider; a name that is too long keeps
    its start and gets a hash of the whole, so two long names stay apart."""
    name = safe_name(f"mcp__{server}__{tool}")
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[:MAX_NAME - 9]}_{digest}"


class McpTool(Tool[McpArgs]):
    args_model = McpArgs

    def __init__(self, connection: ServerLink, tool: mcp_types.Tool) -> None:
        self.connection = connection
        self.remote_name = tool.name
        self.name = tool_name(connection.name, tool.name)
        about = (tool.description or tool.title or tool.name).strip()
        if len(about) > MAX_DESCRIPTION:
            about = about[:MAX_DESCRIPTION] + " […]"
        self.description = f"{about}\n(from the MCP server {connection.name!r})"
        read_only = tool.annotations is not None and tool.annotations.read_only_hint is True
        self.kind: ToolKind = "read" if read_only else "command"
        parameters = _object_schema(tool.input_schema)
        self._spec = ToolSpec(name=self.name, description=self.description, parameters=parameters)
        schema_chars = len(json.dumps(parameters))
        self.spec_chars = schema_chars + len(self.description) + len(self.name)
        """About what its definition adds to a request."""
        self.refused = _refusal(tool, schema_chars)
        """Why it is never offered, or None."""

    def spec(self) -> ToolSpec:
        return self._spec

    @property
    def shown_name(self) -> str:
        """The server's name for it, cut to what the specification allows, for lists."""
        name = self.remote_name
        return name if len(name) <= MAX_REMOTE_NAME else name[:MAX_REMOTE_NAME] + "…"

    def summary(self, args: Mapping[str, Any]) -> str:
        shown = json.dumps(dict(args), ensure_ascii=False) if args else ""
        if len(shown) > SUMMARY_CHARS:
            shown = shown[:SUMMARY_CHARS] + " …"
        return f"{self.connection.name} · {self.remote_name} {shown}".rstrip()

    async def run(
        self, args: McpArgs, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput:
        return await self.connection.call(self.remote_name, args.root, on_output)


def _refusal(tool: mcp_types.Tool, schema_chars: int) -> str | None:
    if tool.execution is not None and tool.execution.task_support == "required":
        return "it runs only as an MCP task, which NeoCode does not support"
    if len(tool.name) > MAX_REMOTE_NAME:
        return f"its name is longer than {MAX_REMOTE_NAME} characters"
    if schema_chars > MAX_SCHEMA:
        return f"its input schema is {schema_chars:,} characters, more than {MAX_SCHEMA:,}"
    return None


def _object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The providers want an object schema with properties, which some servers leave out."""
    return {"type": "object", "properties": {}, **schema}
