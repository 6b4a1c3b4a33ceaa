"""The MCP servers of one session: which may start, their state, their tools.

``start`` only launches background tasks, so opening a session never waits for a server;
``tools`` is asked at every request and offers the tools of the servers connected at that
moment, as many as fit (``offer``); ``report`` is told, once per change, what was left out.
A workspace's own ``.mcp.json`` runs commands from the workspace, so its servers start only
in a folder the user trusts, and only as the file was when the user trusted it
(``neocode_tui.trust``), or with ``--trust`` for the run; elsewhere they are listed as not
started, and why.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neocode_tui.agent.mcp.config import (
    USER_FILE,
    WORKSPACE_FILE,
    Configs,
    ServerEntry,
    load_configs,
    server_secrets,
)
from neocode_tui.agent.mcp.offer import SPECS_BUDGET, Offer, choose, left_out_text
from neocode_tui.agent.mcp.server_link import State
from neocode_tui.agent.tools import MAX_TOOLS, Tool
from neocode_tui.deferred import lazy
from neocode_tui.errors import NeoCodeError
from neocode_tui.known_secrets import Secrets
from neocode_tui.paths import data_dir
from neocode_tui.terminal_text import visible
from neocode_tui.trust import NOT_TRUSTED

if TYPE_CHECKING:
    from neocode_tui.agent.mcp import elicitation
    from neocode_tui.agent.mcp.connection import McpConnection
    from neocode_tui.agent.mcp.elicitation import Answer, Elicitor, Question
    from neocode_tui.agent.mcp.prompts import McpPrompt
    from neocode_tui.agent.mcp.tool import McpTool
    from neocode_tui.agent.workspace import Hidden
else:
    elicitation = lazy("neocode_tui.agent.mcp.elicitation")  # only a server that asks needs it

CONNECT_TIMEOUT = 10.0
CALL_TIMEOUT = 300.0
UNTRUSTED = "folder not trusted"
LISTED_NAMES = 40
"""Tool names ``/mcp`` lists per line before it counts the rest."""



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
    """The tools' names as the server has them (an overlong one cut)."""
    not_offered: tuple[str, ...] = ()
    """A line per reason some of them are not offered to the model."""
    signed_in: bool = False
    """It is an HTTP server NeoCode holds an OAuth sign-in for."""


class McpManager:
    def __init__(
        self,
        workspace: Path,
        *,
        configs: Configs | None = None,
        connect_timeout: float = CONNECT_TIMEOUT,
        call_timeout: float = CALL_TIMEOUT,
        trusted: bool = False,
        secrets: Secrets | None = None,
        report: Callable[[str], None] | None = None,
        inform: Callable[[str], None] | None = None,
        on_change: Callable[[], None] | None = None,
        elicitor: Elicitor | None = None,
        open_url: Callable[[str], None] | None = None,
    ) -> None:
        """``trusted``: the user trusts the folder for this run (``--trust``), whatever
        they answered before. ``secrets``: the session's holder; it learns the servers'
        credentials here and scrubs their errors. ``report``: told what was left out of
        the tools offered, once per change; ``inform``: what the user should do or know
        that is no problem (a sign-in page); ``on_change``: a server's prompts or resources
        may have changed (it connected, or sent list_changed), so the front ends list the
        prompts again; ``elicitor``: asks the user a server's question (without one,
        headless, it is declined); ``open_url``: opens a sign-in page in the user's
        browser, where the front end can."""
        self.workspace = workspace.resolve()
        configs = configs if configs is not None else load_configs(self.workspace)
        self.secrets = secrets if secrets is not None else Secrets()
        self.problems = configs.problems
        """Config files or entries that could not be used, each naming its file."""
        self._untrusted = "" if trusted else configs.untrusted
        """Why the workspace's servers may not start, "" when they may."""
        self._blocked = [e for e in configs.servers if e.source == "workspace" and self._untrusted]
        allowed = [entry for entry in configs.servers if entry not in self._blocked]
        self.secrets.add(server_secrets(allowed))  # a folder's own servers, only when they run
        self._allowed = allowed
        self._timeouts = (connect_timeout, call_timeout)
        self._connections: dict[str, McpConnection] = {}
        self._opening: asyncio.Task[None] | None = None
        self._sign_in = False
        self._resource_tools: list[Tool[Any]] = []
        if allowed:
            from neocode_tui.agent.mcp.resources import ListMcpResources, ReadMcpResource

            self._resource_tools = [
                ListMcpResources(self.resource_servers), ReadMcpResource(self.resource_servers)]
        self._started = False
        self._closed = False
        self.report, self.inform, self.on_change = report, inform, on_change
        self.elicitor, self.open_url = elicitor, open_url
        self.room = MAX_TOOLS
        """Tools a request may offer: the registry leaves out what its built-in tools take."""
        self._offer = Offer()
        self._offer_made_of: tuple[object, ...] = ()
        self._told: dict[str, str] = {}
        self._watching: set[asyncio.Task[None]] = set()
        self._asked_to_sign_in: set[str] = set()

    def start(self, *, sign_in: bool = False) -> None:
        """Connect every allowed server in the background (the first call only).
        ``sign_in``: the user waits for the servers (headless), so one that asks for an
        OAuth sign-in gets it now; else it waits for ``/mcp login``."""
        if self._started or self._closed:
            return
        self._started = True
        self._sign_in = sign_in
        if self._allowed:
            self._opening = asyncio.get_running_loop().create_task(self._open(), name="mcp servers")

    async def _open(self) -> None:
        """The SDK takes most of a second to import: only a session that starts servers
        pays it, and in a thread, so neither the screen nor a command waits for it."""
        module = await asyncio.to_thread(importlib.import_module, "neocode_tui.agent.mcp.connection")
        if self._closed:
            return
        connect_timeout, call_timeout = self._timeouts
        log_dir = data_dir() / "mcp-logs"
        for entry in self._allowed:
            connection: McpConnection = module.McpConnection(
                entry, self.workspace, log_dir, connect_timeout=connect_timeout,
                call_timeout=call_timeout, secrets=self.secrets)
            connection.on_change = self._offers_changed
            connection.asker = self._ask
            connection.announce = self._sign_in_page
            connection.on_sign_in_needed = self._sign_in_needed
            self._connections[entry.name] = connection
            connection.start(interactive=self._sign_in)

    async def wait_ready(self) -> None:
        """Until every started server is connected or has failed; for a run that cannot
        wait for the user (headless), at most the connect timeout."""
        if self._opening is not None:
            await self._opening
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

    def tools(self) -> list[Tool[Any]]:
        """The tools to offer the model now: as many of the connected servers' as fit in
        ``room`` and the size budget, and the two resource tools while a server has some."""
        offered: list[Tool[Any]] = list(self._current().tools)
        return self._resource_tools + offered if self.resource_servers() else offered

    def find(self, name: str) -> Tool[Any] | None:
        """A tool offered now, or one seen this session whose server went away (so a call
        to it gets that server's error rather than "no such tool"). A tool left out is not
        found: the model was never shown it."""
        offer = self._current()
        for tool in self._resource_tools:
            if tool.name == name and self.resource_servers():
                return tool
        for connection in self._connections.values():
            for tool in connection.tools:
                if tool.name == name:
                    return tool if connection.state != "connected" or tool in offer.tools else None
        return None

    def _current(self) -> Offer:
        """The offer for the servers connected now, chosen again only when they change."""
        connected = [(n, c.tools) for n, c in self._connections.items() if c.state == "connected"]
        made_of = (self.room, *connected)
        if made_of != self._offer_made_of:
            self._offer, self._offer_made_of = choose(connected, self.room), made_of
            self._tell(connected)
        return self._offer

    def _tell(self, connected: Sequence[tuple[str, Sequence[McpTool]]]) -> None:
        for name, tools in connected:
            over = self._offer.left_out.get(name, 0)
            refused = [tool for tool in tools if tool.refused is not None]
            if not over and not refused:
                self._told.pop(name, None)
                continue
            message = left_out_text(name, len(tools), over, refused)
            if self._told.get(name) != message:
                self._told[name] = message
                if self.report is not None:
                    self.report(message)

    # -- prompts, resources and questions ---------------------------------------------------

    def prompts(self) -> list[McpPrompt]:
        """The connected servers' prompts, as slash commands."""
        return [prompt for connection in self._connections.values()
                if connection.state == "connected" for prompt in connection.prompt_commands()]

    async def expand(self, text: str) -> str | None:
        """The prompt ``text`` stands for when it is ``/mcp__server__prompt args``;
        ``ToolError`` or ``PromptArgumentsMissing`` when the server's prompt cannot be had."""
        stripped = text.strip()
        if not stripped.startswith("/mcp__"):
            return None
        name, _, arguments = stripped[1:].partition(" ")
        prompt = next((p for p in self.prompts() if p.name == name), None)
        return None if prompt is None else self.secrets(await prompt.render(arguments))

    async def attach(self, text: str, hidden: Hidden) -> tuple[str, list[str]]:
        """``text`` with the ``@server:uri`` resources it mentions after it (scrubbed), and
        what could not be attached; ``hidden`` withholds local files (``Workspace.hidden``)."""
        servers = self.resource_servers()
        if not servers:
            return text, []
        from neocode_tui.agent.mcp.resources import attach_resources

        return await attach_resources(text, servers, self.secrets, hidden)

    def resource_servers(self) -> dict[str, McpConnection]:
        return {name: c for name, c in self._connections.items()
                if c.state == "connected" and c.resources}

    def resource_uris(self) -> dict[str, list[str]]:
        """Each connected server's resource URIs, for the ``@`` picker."""
        return {name: [str(resource.uri) for resource in connection.resources]
                for name, connection in self.resource_servers().items()}

    def _offers_changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    async def _ask(self, server: str, message: str, question: Question | None, why: str) -> Answer:
        """A server's question, put to the user by the front end; declined, and said so,
        when there is no one to ask or the form cannot be shown."""
        if question is not None and self.elicitor is not None:
            return await self.elicitor(question)
        if question is not None:
            why = "no one is here to answer (a run without the screen)"
        if self.report is not None:
            self.report(f"the MCP server {server} asked {visible(message[:200])!r}; declined: {why}")
        return elicitation.Answer("decline")

    # -- what /mcp shows and does ---------------------------------------------------------

    def status(self) -> list[ServerStatus]:
        offered = set(self._current().tools)
        statuses = [
            ServerStatus(
                name, _source(connection.entry), connection.state,
                self.secrets.provider_message(connection.error),
                tuple(tool.shown_name for tool in connection.tools),
                _not_offered(connection.tools, offered) if connection.state == "connected" else (),
                connection.signed_in,
            )
            for name, connection in self._connections.items()
        ]
        waiting: State = "connecting" if self._started and not self._closed else "not started"
        statuses += [ServerStatus(e.name, _source(e), waiting) for e in self._allowed
                     if e.name not in self._connections]
        why = UNTRUSTED if self._untrusted == NOT_TRUSTED else self._untrusted
        statuses += [ServerStatus(e.name, _source(e), "not started", why) for e in self._blocked]
        return statuses

    async def restart(self, name: str) -> ServerStatus:
        """Stop ``name`` and connect it again; returns its state once that is settled."""
        connection = await self._stopped(name, "restarted")
        connection.start()
        await connection.wait_settled()
        return self._status_of(name)

    async def login(self, name: str) -> ServerStatus:
        """Connect ``name`` again, signing in when it asks: returns once the user has been
        sent to the sign-in page (its state is then "connecting"), or the connection settled
        without one; the end of the sign-in is told through ``inform`` or ``report``."""
        connection = await self._stopped(name, "signed in to", oauth=True)
        connection.start(interactive=True)
        while connection.state == "connecting" and not connection.sign_in_url:
            await asyncio.sleep(0.05)
        if connection.state == "connecting":
            task = asyncio.create_task(self._tell_sign_in(connection), name=f"mcp sign-in {name}")
            self._watching.add(task)
            task.add_done_callback(self._watching.discard)
        return self._status_of(name)

    async def logout(self, name: str) -> ServerStatus:
        """Revoke the sign-in of ``name`` where it was issued (when its authorization server
        offers that), forget it here (its tokens and registration) and connect again."""
        connection = await self._stopped(name, "signed out of", oauth=True)
        sign_in = connection.sign_in
        assert sign_in is not None
        # The SDK's auth helpers: loaded with the first server, not at start-up.
        from neocode_tui.agent.mcp.sign_out import revoke

        problem = await revoke(sign_in.url, sign_in)
        sign_in.forget()
        if problem is not None and self.report is not None:
            self.report(f"signed out of the MCP server {name}, but {problem}")
        connection.start()
        await connection.wait_settled()
        return self._status_of(name)

    async def _stopped(self, name: str, what: str, *, oauth: bool = False) -> McpConnection:
        """The connection of ``name``, stopped; ``UnknownServer`` when there is none to
        act on (``oauth``: none that signs in)."""
        if self._opening is not None:
            await self._opening
        connection = self._connections.get(name)
        if connection is None:
            if any(entry.name == name for entry in self._blocked):
                raise UnknownServer(f"{name} is not started: {self._untrusted}")
            known = ", ".join(self.names) or "none are configured"
            raise UnknownServer(f"no MCP server named {name!r} (servers: {known})")
        if oauth and connection.sign_in is None:
            raise UnknownServer(
                f"{name} is not signed in to: only an HTTP server without a configured "
                "Authorization header uses an OAuth sign-in")
        await connection.stop()
        if self._closed:
            raise UnknownServer(f"{name} was not {what}: the session is closing")
        return connection

    def _status_of(self, name: str) -> ServerStatus:
        return next(status for status in self.status() if status.name == name)

    def _sign_in_page(self, name: str, url: str) -> None:
        if self.inform is not None:
            self.inform(f"sign in to the MCP server {name} in your browser: {url}")
        if self.open_url is not None:
            self.open_url(url)

    def _sign_in_needed(self, connection: McpConnection) -> None:
        """Said once a session per server: ``/mcp`` keeps saying it."""
        if connection.name not in self._asked_to_sign_in and self.inform is not None:
            self._asked_to_sign_in.add(connection.name)
            self.inform(f"the MCP server {connection.name} asks you to sign in: /mcp login {connection.name}")

    async def _tell_sign_in(self, connection: McpConnection) -> None:
        await connection.wait_settled()
        if connection.state == "connected" and self.inform is not None:
            self.inform(f"signed in to the MCP server {connection.name}")
        elif connection.state != "connected" and self.report is not None:
            self.report(f"the sign-in to the MCP server {connection.name} did not end: "
                        + self.secrets.provider_message(connection.error))

    @property
    def names(self) -> list[str]:
        return [entry.name for entry in self._allowed]

    async def aclose(self) -> None:
        """Stop every server and the processes they started; none starts after this."""
        self._closed = True
        if self._opening is not None:
            await self._opening
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
        head = f"{status.name} ({status.source}): {status.state}" + (", signed in" if status.signed_in else "")
        if status.state == "connected":
            lines.append(f"{head}, {len(status.tools):,} tools: {_names(status.tools)}")
            lines += [f"    {line}" for line in status.not_offered]
        elif status.error:
            first, *rest = status.error.splitlines()
            lines += [f"{head}: {first}", *(f"    {line}" for line in rest)]
        else:
            lines.append(head)
    lines += [f"config problem: {problem}" for problem in problems]
    if any(status.state in ("failed", "stopped") for status in statuses):
        lines.append("/mcp restart NAME connects a server again")
    if any(status.state == "needs sign-in" for status in statuses):
        lines.append("/mcp login NAME signs in to a server (/mcp logout NAME forgets it)")
    return "\n".join(lines)


def _not_offered(tools: Sequence[McpTool], offered: set[McpTool]) -> tuple[str, ...]:
    """A line for the tools over the limit, then one per tool that cannot be offered."""
    over = [tool.shown_name for tool in tools if tool.refused is None and tool not in offered]
    lines = [
        f"not offered, over the limit of {MAX_TOOLS} tools and {SPECS_BUDGET:,} characters "
        f"in a request ({len(over):,}): {_names(over)}"
    ] if over else []
    refused = [tool for tool in tools if tool.refused is not None]
    lines += [f"not offered, {tool.shown_name}: {tool.refused}" for tool in refused[:LISTED_NAMES]]
    if len(refused) > LISTED_NAMES:
        lines.append(f"not offered for such reasons: {len(refused) - LISTED_NAMES:,} more")
    return tuple(lines)


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(names[:LISTED_NAMES])
    return shown + (f", … ({len(names) - LISTED_NAMES:,} more)" if len(names) > LISTED_NAMES else "")


def _source(entry: ServerEntry) -> str:
    return {"workspace": f"workspace {WORKSPACE_FILE}", "user": f"user {USER_FILE}", "client": "the editor"}[
        entry.source
    ]
