"""The MCP servers of one session: which may start, their state, their tools.

``start`` only launches background tasks, so opening a session never waits for a server;
``tools`` is asked at every request and offers the tools of the servers connected at that
moment. A workspace's own ``.mcp.json`` runs commands from the workspace, so its servers
start only in a folder the user trusts, and only as the file was when the user trusted it
(``neocode_tui.trust``); elsewhere they are listed as not started, and why.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from neocode_tui.agent.mcp.config import USER_FILE, WORKSPACE_FILE, Configs, ServerEntry, load_configs
from neocode_tui.errors import NeoCodeError
from neocode_tui.paths import data_dir
from neocode_tui.trust import NOT_TRUSTED

if TYPE_CHECKING:
    from neocode_tui.agent.mcp.connection import McpConnection
    from neocode_tui.agent.mcp.tool import McpTool

CONNECT_TIMEOUT = 10.0
CALL_TIMEOUT = 300.0
UNTRUSTED = "folder not trusted"

State = Literal["not started", "connecting", "connected", "failed", "stopped"]


class UnknownServer(NeoCodeError):
    """``/mcp restart NAME`` with a name no config has."""


@dataclass(frozen=True)
class ServerStatus:
    name: str
    source: str
    """Which file configured it: "workspace .mcp.json" or "user mcp.json"."""
    state: State
    error: str = ""
    tools: tuple[str, ...] = ()
    """The tools' names as the server has them."""


class McpManager:
    def __init__(
        self,
        workspace: Path,
        *,
        configs: Configs | None = None,
        connect_timeout: float = CONNECT_TIMEOUT,
        call_timeout: float = CALL_TIMEOUT,
    ) -> None:
        self.workspace = workspace.resolve()
        configs = configs if configs is not None else load_configs(self.workspace)
        self.problems = configs.problems
        """Config files or entries that could not be used, each naming its file."""
        self._untrusted = configs.untrusted
        """Why the workspace's servers may not start, "" when they may."""
        self._blocked = [e for e in configs.servers if e.source == "workspace" and self._untrusted]
        allowed = [entry for entry in configs.servers if entry not in self._blocked]
        self._connections: dict[str, McpConnection] = {}
        if allowed:
            # Only now: the SDK takes most of a second to import, which a session without
            # servers (most runs) should not pay.
            from neocode_tui.agent.mcp.connection import McpConnection

            log_dir = data_dir() / "mcp-logs"
            self._connections = {
                entry.name: McpConnection(
                    entry, self.workspace, log_dir,
                    connect_timeout=connect_timeout, call_timeout=call_timeout,
                )
                for entry in allowed
            }
        self._started = False
        self._closed = False

    def start(self) -> None:
        """Connect every allowed server in the background (the first call only)."""
        if self._started or self._closed:
            return
        self._started = True
        for connection in self._connections.values():
            connection.start()

    async def wait_ready(self) -> None:
        """Until every started server is connected or has failed; for a run that cannot
        wait for the user (headless), at most the connect timeout."""
        await asyncio.gather(*(c.wait_settled() for c in self._connections.values()))

    def notices(self) -> list[str]:
        """What a front end says when the session opens: unusable configs, and servers
        that a folder's own file asked for but that may not start here."""
        notices = [f"MCP config: {problem}" for problem in self.problems]
        if self._blocked:
            names = ", ".join(entry.name for entry in self._blocked)
            notices.append(f"MCP servers in {WORKSPACE_FILE} not started, {self._untrusted}: {names}")
        return notices

    # -- the registry's source of tools ---------------------------------------------------

    def tools(self) -> list[McpTool]:
        """The tools to offer the model now: those of the connected servers."""
        return [
            tool
            for connection in self._connections.values()
            if connection.state == "connected"
            for tool in connection.tools
        ]

    def find(self, name: str) -> McpTool | None:
        """Any tool seen this session, so a call to one whose server went away gets that
        server's error rather than "no such tool"."""
        for connection in self._connections.values():
            for tool in connection.tools:
                if tool.name == name:
                    return tool
        return None

    # -- what /mcp shows and does ---------------------------------------------------------

    def status(self) -> list[ServerStatus]:
        statuses = [
            ServerStatus(
                name, _source(connection.entry), connection.state, connection.error,
                tuple(tool.remote_name for tool in connection.tools),
            )
            for name, connection in self._connections.items()
        ]
        why = UNTRUSTED if self._untrusted == NOT_TRUSTED else self._untrusted
        statuses += [ServerStatus(e.name, _source(e), "not started", why) for e in self._blocked]
        return statuses

    async def restart(self, name: str) -> ServerStatus:
        """Stop ``name`` and connect it again; returns its state once that is settled."""
        connection = self._connections.get(name)
        if connection is None:
            if any(entry.name == name for entry in self._blocked):
                raise UnknownServer(f"{name} is not started: {self._untrusted}")
            known = ", ".join(self._connections) or "none are configured"
            raise UnknownServer(f"no MCP server named {name!r} (servers: {known})")
        await connection.stop()
        if self._closed:
            raise UnknownServer(f"{name} was not restarted: the session is closing")
        connection.start()
        await connection.wait_settled()
        return next(status for status in self.status() if status.name == name)

    @property
    def names(self) -> list[str]:
        return list(self._connections)

    async def aclose(self) -> None:
        """Stop every server and the processes they started; none starts after this."""
        self._closed = True
        await asyncio.gather(*(c.stop() for c in self._connections.values()))


def status_text(statuses: list[ServerStatus], problems: list[str]) -> str:
    """What ``/mcp`` prints: a line per server, its error or its tools under it."""
    if not statuses and not problems:
        return (
            f"no MCP servers: add them to {WORKSPACE_FILE} in this folder or to {USER_FILE} "
            "in your config folder ({\"mcpServers\": {...}})"
        )
    lines: list[str] = []
    for status in statuses:
        head = f"{status.name} ({status.source}): {status.state}"
        if status.state == "connected":
            lines.append(f"{head}, {len(status.tools)} tools: {', '.join(status.tools)}")
        elif status.error:
            first, *rest = status.error.splitlines()
            lines += [f"{head}: {first}", *(f"    {line}" for line in rest)]
        else:
            lines.append(head)
    lines += [f"config problem: {problem}" for problem in problems]
    if any(status.state in ("failed", "stopped") for status in statuses):
        lines.append("/mcp restart NAME connects a server again")
    return "\n".join(lines)


def _source(entry: ServerEntry) -> str:
    return {"workspace": f"workspace {WORKSPACE_FILE}", "user": f"user {USER_FILE}", "client": "the editor"}[
        entry.source
    ]
