"""A server's resources: ``@server:uri`` in a prompt, and two tools for the model.

A resource is read only when asked for: by the user mentioning it (``@docs:file:///guide.md``,
completed in the app's picker) or by the model through ``read_mcp_resource`` after
``list_mcp_resources``. Both tools are offered only while a connected server has resources,
and read nothing but what the server serves. What comes back is scrubbed and capped like
any tool's result; binary contents are described, not sent. A resource that is a local
file (a ``file://`` URI, asked for or given back) goes through the check of what may reach
the model (``Workspace.hidden``): one a deny rule covers is withheld, and said so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field

from neocode_tui.agent.mcp.text import capped, size_text
from neocode_tui.agent.tools.base import OutputCallback, Tool, ToolError, ToolOutput
from neocode_tui.agent.workspace import Hidden, Workspace, withheld

if TYPE_CHECKING:
    import mcp_types

    from neocode_tui.agent.mcp.server_link import ServerLink

MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_.-]+):(\S+)")
"""``@server:uri``: the server's name, then its resource's URI as the server lists it."""
MENTIONS_CAP = 10
"""Resources attached to one prompt."""
LISTED = 200
"""Resources one ``list_mcp_resources`` call lists."""

Servers = Callable[[], Mapping[str, "ServerLink"]]
"""The connected servers that have resources, by name."""


def local_file(uri: str) -> Path | None:
    """The resolved local file a ``file://`` URI names; None for any other URI."""
    parts = urlsplit(uri.strip())
    if parts.scheme.lower() != "file" or parts.netloc.lower() not in ("", "localhost"):
        return None
    try:
        return Path(unquote(parts.path)).resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def hidden_resource(uris: Iterable[str], hidden: Hidden) -> str | None:
    """Why the first of ``uris`` that is a local file the model may not be sent is
    withheld, or None."""
    for uri in uris:
        path = local_file(uri)
        if path is not None and (why := hidden(path)):
            return why
    return None


def _content_uris(result: mcp_types.ReadResourceResult) -> list[str]:
    return [str(content.uri) for content in result.contents]


def resource_text(uri: str, result: mcp_types.ReadResourceResult) -> str:
    parts = []
    for content in result.contents:
        text = getattr(content, "text", None)
        if isinstance(text, str):
            parts.append(text)
        else:
            blob = str(getattr(content, "blob", ""))
            parts.append(f"[{content.mime_type or 'binary'} content, {size_text(blob)}]")
    return capped("\n".join(parts) or f"{uri} is empty")


async def attach_resources(
    text: str, servers: Mapping[str, ServerLink], scrub: Callable[[str], str], hidden: Hidden,
) -> tuple[str, list[str]]:
    """``text`` with each resource it mentions added after it; the problems, in words."""
    blocks: list[str] = []
    problems: list[str] = []
    seen: set[tuple[str, str]] = set()
    for match in MENTION.finditer(text):
        server, uri = match.group(1), match.group(2).rstrip(".,;:!?)]}'")
        connection = servers.get(server)
        if connection is None or (server, uri) in seen:
            continue  # not a server's name: an e-mail address, a path with a colon
        seen.add((server, uri))
        if len(seen) > MENTIONS_CAP:
            problems.append(f"@{server}:{uri} was not attached: {MENTIONS_CAP} resources at most")
            continue
        try:
            read = await _read_shown(connection, uri, hidden)
        except ResourceWithheld as exc:  # said to the user, and the model is told
            problems.append(f"@{server}:{uri} was not attached: {exc}")
            blocks.append(exc.withheld)
            continue
        except ToolError as exc:
            problems.append(f"@{server}:{uri} was not attached: {exc}")
            continue
        blocks.append(f'<mcp-resource server="{server}" uri="{uri}">\n'
                      f"{scrub(resource_text(uri, read))}\n</mcp-resource>")
    if not blocks:
        return text, problems
    return text + "\n\nThe user attached these MCP resources:\n\n" + "\n\n".join(blocks), problems


class ResourceWithheld(ToolError):
    """A resource that is a local file a deny rule keeps from the model."""

    def __init__(self, uri: str, why: str) -> None:
        super().__init__(why)
        self.withheld = withheld(uri, why)


async def _read_shown(connection: ServerLink, uri: str, hidden: Hidden) -> mcp_types.ReadResourceResult:
    """The resource, unless it or what the server gave back is a withheld local file."""
    if why := hidden_resource([uri], hidden):
        raise ResourceWithheld(uri, why)
    read = await connection.read_resource(uri)
    if why := hidden_resource(_content_uris(read), hidden):
        raise ResourceWithheld(uri, why)
    return read


class ListArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    server: str = Field("", description="Only this server's resources (default: every server's).")


class ReadArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    server: str = Field(description="The MCP server's name.")
    uri: str = Field(description="The resource's URI, as list_mcp_resources gives it.")


class ListMcpResources(Tool[ListArgs]):
    name = "list_mcp_resources"
    description = "List the resources (documents, data) the connected MCP servers offer."
    kind = "read"
    args_model = ListArgs

    def __init__(self, servers: Servers) -> None:
        self._servers = servers

    def summary(self, args: Mapping[str, Any]) -> str:
        return f"list MCP resources {args.get('server', '')}".rstrip()

    async def run(self, args: ListArgs, workspace: Workspace,
                  on_output: OutputCallback | None = None) -> ToolOutput:
        servers = _chosen(self._servers(), args.server)
        lines = [
            f"{name}: {resource.uri}" + (f" ({resource.name})" if resource.name else "")
            + (f" - {resource.description}" if resource.description else "")
            for name, connection in servers.items() for resource in connection.resources
        ]
        shown = "\n".join(lines[:LISTED]) or "no resources"
        more = f"\n[… {len(lines) - LISTED} more]" if len(lines) > LISTED else ""
        return ToolOutput(capped(shown + more))


class ReadMcpResource(Tool[ReadArgs]):
    name = "read_mcp_resource"
    description = "Read one resource of a connected MCP server."
    kind = "read"
    args_model = ReadArgs

    def __init__(self, servers: Servers) -> None:
        self._servers = servers

    def summary(self, args: Mapping[str, Any]) -> str:
        return f"read {args.get('server', '')}:{args.get('uri', '')}"

    async def run(self, args: ReadArgs, workspace: Workspace,
                  on_output: OutputCallback | None = None) -> ToolOutput:
        [connection] = _chosen(self._servers(), args.server).values()
        try:
            read = await _read_shown(connection, args.uri, workspace.hidden)
        except ResourceWithheld as exc:
            raise ToolError(exc.withheld) from None
        return ToolOutput(resource_text(args.uri, read))


def _chosen(servers: Mapping[str, ServerLink], name: str) -> Mapping[str, ServerLink]:
    if not name:
        return servers
    if name not in servers:
        known = ", ".join(servers) or "none"
        raise ToolError(f"no connected MCP server {name!r} has resources (those that do: {known})")
    return {name: servers[name]}
