"""One MCP server: its connection, held open by a task of its own, and the calls on it.

The SDK's ``Client`` is an async context that must be entered and left in one task, so
each server gets a task that connects (bounded by ``connect_timeout``), lists the tools,
then waits until it is stopped or the server goes away. Nobody awaits that task to use
the server: a slow or broken one only shows up in ``state`` and ``error``.

A stdio server is stopped the SDK's way (stdin closed, then its process group killed if
it lingers); a server that exits promptly may still leave children behind, in its group or
in sessions of their own, so its whole process tree is killed afterwards (``ProcessTree``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import anyio
import httpx2
import mcp_types
import psutil
from mcp import Client, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from neocode_tui import __version__
from neocode_tui.agent.mcp.config import HttpServer, ServerEntry
from neocode_tui.agent.mcp.elicitation import Asker, Question, UnshowableForm, question_of
from neocode_tui.agent.mcp.oauth import SignIn, SignInNeeded, describe_problem
from neocode_tui.agent.mcp.oauth_store import SignInStore, uses_oauth
from neocode_tui.agent.mcp.prompts import McpPrompt
from neocode_tui.agent.mcp.result import result_output
from neocode_tui.agent.mcp.tool import McpTool
from neocode_tui.agent.processes import ProcessTree
from neocode_tui.agent.tools.base import OutputCallback, ToolError, ToolOutput
from neocode_tui.known_secrets import Secrets
from neocode_tui.paths import data_dir, open_private

if TYPE_CHECKING:
    from neocode_tui.agent.mcp.server_link import State

MARKER = "NEOCODE_MCP_SERVER"
"""Set in a stdio server's environment, so its process can be told from our other children."""
MAX_PAGES = 100
FIND_TRIES = 100
STDERR_LINES = 5
MAX_LISTED = 500
"""Prompts, and resources, kept of one server (the first page holds them in practice)."""
CLOSED = "the server closed the connection"
RELIST_WAIT = 5.0
"""How long a call's result waits for the lists its server said changed (the model's
next request is to offer what the call added)."""
STOP_GRACE = 0.3
"""How long a stopped stdio server has to exit once its stdin is closed before it is sent
SIGTERM (it may still clean up then; the SDK kills its group 2 s later)."""
GONE = (httpx2.HTTPError, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError)
"""What a transport raises when the server is no longer there."""
T = TypeVar("T")


class _SdkLog(logging.Handler):
    """The SDK logs a server's stray stdout lines and failed clean-ups with tracebacks; they
    go to ``mcp-logs/sdk.log`` in the data folder, never over the screen or a headless
    run's output (what the user must know reaches the server's status)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            with open_private(data_dir() / "mcp-logs" / "sdk.log", "a", encoding="utf-8") as log:
                log.write(self.format(record) + "\n")
        except OSError:
            pass


_sdk_logger = logging.getLogger("mcp")
_sdk_logger.addHandler(_SdkLog())
_sdk_logger.propagate = False


class McpConnection:
    def __init__(
        self,
        entry: ServerEntry,
        workspace: Path,
        log_dir: Path,
        *,
        connect_timeout: float,
        call_timeout: float,
        secrets: Secrets | None = None,
    ) -> None:
        self.entry = entry
        self.name = entry.name
        self.workspace = workspace
        self.log = log_dir / f"{_safe(entry.name)}.log"
        """Where a stdio server's stderr goes (never onto the screen)."""
        self.connect_timeout = connect_timeout
        self.call_timeout = call_timeout
        self.state: State = "not started"
        self.error = ""
        self.tools: list[McpTool] = []
        self.prompts: list[mcp_types.Prompt] = []
        self.resources: list[mcp_types.Resource] = []
        self.on_change: Callable[[], None] | None = None
        """Told when what the server offers changed (connected, a list_changed)."""
        self.asker: Asker | None = None
        """Puts a question the server sends (``elicitation``) to the user."""
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._scope: anyio.CancelScope | None = None
        self._wake = asyncio.Event()
        self._stopping = False
        self._pid: int | None = None
        self._tree: ProcessTree | None = None
        self.sign_in: SignInStore | None = None
        """The stored OAuth sign-in of an HTTP server that may ask for one."""
        if isinstance(entry.config, HttpServer) and uses_oauth(entry.config.headers):
            self.sign_in = SignInStore(entry.config.url, secrets if secrets is not None else Secrets())
        self.announce: Callable[[str, str], None] | None = None
        """Told the sign-in page to send the user to (the server's name, the URL)."""
        self.sign_in_url = ""
        """The sign-in page the user was sent to, while the connection waits for them."""
        self.on_sign_in_needed: Callable[[McpConnection], None] | None = None
        """Told when the server asked for a sign-in nobody had asked for (it waits for one)."""
        self._auth_problem: BaseException | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timed_out = False
        self._relisting: asyncio.Task[None] | None = None
        self._stale = False

    # -- lifecycle ------------------------------------------------------------------------

    def start(self, *, interactive: bool = False) -> None:
        """Connect in the background; does nothing while a connection is up or under way.
        ``interactive``: the user is here to sign in, so a server that asks for it gets the
        sign-in page (else it is "needs sign-in")."""
        if self._task is not None and not self._task.done():
            return
        self.state, self.error, self.tools = "connecting", "", []
        self.prompts, self.resources = [], []
        self._wake = asyncio.Event()
        self._stopping = False
        self.sign_in_url = ""
        self._task = asyncio.create_task(self._serve(interactive), name=f"mcp server {self.name}")

    async def stop(self) -> None:
        """Disconnect and end the server's processes; returns once they are gone."""
        task = self._task
        if task is None:
            return
        self._stopping = True
        self._wake.set()
        if self.state == "connecting" and self._scope is not None:
            self._scope.cancel()
        # The SDK closes the server's stdin and gives it 2 s to exit; many servers never
        # do on their own, and every headless run would wait that out at its end.
        terminate = asyncio.get_running_loop().call_later(STOP_GRACE, self._signal_group, signal.SIGTERM)
        try:
            await asyncio.wait([task])
        finally:
            terminate.cancel()

    async def wait_settled(self) -> None:
        """Until the connection is up or has failed (never longer than the connect timeout,
        and the sign-in's own while the user signs in)."""
        while self.state == "connecting":
            await asyncio.sleep(0.05)

    async def _serve(self, interactive: bool) -> None:
        self._timed_out, self._auth_problem = False, None
        auth = self._auth(interactive)
        try:
            with open_private(self.log, "w", encoding="utf-8") as errlog, \
                    anyio.CancelScope() as scope:
                self._scope = scope
                self._waiting(False)
                try:
                    async with Client(
                        self._transport(errlog, auth),
                        client_info=mcp_types.Implementation(name="neocode", version=__version__),
                        elicitation_callback=self._elicited, list_roots_callback=self._roots,
                        sampling_callback=_no_sampling, message_handler=self._notified,
                    ) as client:
                        listed = await _list_tools(client)
                        self.prompts, self.resources = await _offers(client)
                        self._cancel_timer()
                        self.tools = [McpTool(self, tool) for tool in listed]
                        self._client = client
                        self.state = "connected"
                        self._changed()
                        await self._held(client)
                finally:
                    self._cancel_timer()
                    self._client = None
        except Exception as exc:  # whatever the server or transport did, it is this server's state
            self._fail(_describe(exc))
        finally:
            self._kill_processes()
            if auth is not None:
                await auth.aclose()
        self._settle()

    def _settle(self) -> None:
        """The state a connection that ended is left in, by what ended it."""
        problem = self._auth_problem
        if isinstance(problem, SignInNeeded) and not self._stopping:
            self.state = "needs sign-in"
            self.error = f"the server asks you to sign in: /mcp login {self.name}"
            if self.on_sign_in_needed is not None:
                self.on_sign_in_needed(self)
        elif problem is not None and not self._stopping:
            self.state, self.error = "failed", describe_problem(problem)
        elif self._timed_out:
            self._fail(f"no answer within {self.connect_timeout:g} s")
        elif self._stopping:
            self.state = "stopped"
        elif self.state in ("connecting", "connected"):
            self._fail(CLOSED)

    def _auth(self, interactive: bool) -> SignIn | None:
        if self.sign_in is None or not isinstance(self.entry.config, HttpServer):
            return None
        return SignIn(
            self.entry.config.url, self.sign_in, interactive=interactive, announce=self._announced,
            on_problem=self._auth_failed, on_waiting=self._waiting,
        )

    def _announced(self, url: str) -> None:
        self.sign_in_url = url
        if self.announce is not None:
            self.announce(self.name, url)

    def _auth_failed(self, problem: BaseException) -> None:
        """The sign-in cannot go on: end the connection now (the transport would only log it)."""
        if self._auth_problem is None:
            self._auth_problem = problem
        if self._scope is not None:
            self._scope.cancel()

    def _waiting(self, on_the_user: bool) -> None:
        """The connect timeout runs except while the user signs in (that has its own)."""
        self._cancel_timer()
        if not on_the_user:
            self._timer = asyncio.get_running_loop().call_later(self.connect_timeout, self._time_out)

    def _time_out(self) -> None:
        self._timed_out = True
        if self._scope is not None:
            self._scope.cancel()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    @property
    def signed_in(self) -> bool:
        return self.sign_in is not None and self.sign_in.signed_in

    def _lost(self, error: str) -> ToolError:
        """The connection is gone: mark the server failed, let its task clean up, and
        give the call an error that says what the user can do."""
        self._fail(error)
        self._wake.set()
        return ToolError(
            f"the MCP server {self.name!r} failed: {error} "
            f"(the user can restart it with /mcp restart {self.name})"
        )

    def _fail(self, error: str) -> None:
        if self.state == "failed" or self._stopping:
            return
        tail = self._stderr_tail()
        self.state, self.error = "failed", error + (f"\n{tail}" if tail else "")

    def _transport(self, errlog: TextIO, auth: SignIn | None) -> Any:
        config = self.entry.config
        if isinstance(config, HttpServer):
            return self._watched(_http(config, auth))
        token = uuid.uuid4().hex
        self._tree = ProcessTree()
        params = StdioServerParameters(
            command=config.command, args=config.args, cwd=self.workspace,
            env=self._tree.environment({**config.env, MARKER: token}),
        )
        return self._watched(stdio_client(params, errlog=errlog), token)

    @asynccontextmanager
    async def _watched(self, transport: Any, token: str | None = None) -> AsyncIterator[Any]:
        """The transport, waking the serving task when its messages end (a stdio server
        exited, an HTTP one closed the stream); for stdio, also noting its process."""
        async with transport as (read, write):
            if token is not None:
                self._pid = await _child_with(token)
                if self._pid is not None and self._tree is not None:
                    self._tree.started(self._pid)
            yield _EndWatch(read, self._wake.set), write

    def _kill_processes(self) -> None:
        """The server's every process, those that left its group too."""
        self._signal_group(signal.SIGKILL)
        if self._tree is not None:
            self._tree.kill()
        self._pid, self._tree = None, None

    def _signal_group(self, signum: int) -> None:
        if self._pid is not None and hasattr(os, "killpg"):
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(self._pid, signum)

    def _stderr_tail(self) -> str:
        try:
            lines = self.log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-STDERR_LINES:])

    # -- what the server asks of the client ------------------------------------------------

    async def _elicited(
        self, context: Any, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        question: Question | None = None
        why = "it asks to open a web page, which NeoCode does not do"
        if isinstance(params, mcp_types.ElicitRequestFormParams):
            try:
                question = question_of(self.name, params.message, params.requested_schema)
            except UnshowableForm as exc:
                why = str(exc)
        if self.asker is None:
            return mcp_types.ElicitResult(action="decline")
        answer = await self.asker(self.name, params.message, question, why)
        content = answer.content if answer.action == "accept" else None
        return mcp_types.ElicitResult(action=answer.action, content=content)

    async def _roots(self, context: Any) -> mcp_types.ListRootsResult:
        """The workspace, the one folder the session works in."""
        root = mcp_types.Root.model_validate(
            {"uri": self.workspace.resolve().as_uri(), "name": self.workspace.name})
        return mcp_types.ListRootsResult(roots=[root])

    async def _held(self, client: Client) -> None:
        """Until the connection is stopped or lost. A 2026-07-28 server tells of changed
        lists only on a ``subscriptions/listen`` stream (a handshake-era one sends them as
        notifications: ``_notified``), so that stream is held open meanwhile."""
        if client.session.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            await self._wake.wait()
            return
        async with anyio.create_task_group() as group:
            group.start_soon(self._listen, client)
            await self._wake.wait()
            group.cancel_scope.cancel()

    async def _listen(self, client: Client) -> None:
        """Lists again on each change event; a server that cannot stream them has none."""
        with suppress(ListenNotSupportedError, SubscriptionLost, MCPError, TimeoutError, *GONE):
            async with client.listen(tools_list_changed=True, prompts_list_changed=True,
                                     resources_list_changed=True) as events:
                async for _ in events:
                    self._relist_soon()

    async def _notified(self, message: Any) -> None:
        """A list the server changed is listed again, and the session told."""
        if isinstance(message, mcp_types.ToolListChangedNotification | mcp_types.PromptListChangedNotification
                      | mcp_types.ResourceListChangedNotification):
            self._relist_soon()

    def _relist_soon(self) -> None:
        """List again, once what is under way is done: changes in a burst cost one more
        listing, never one each. Set at once, so a call's result can wait for it."""
        self._stale = True
        if self._relisting is None or self._relisting.done():
            self._relisting = asyncio.get_running_loop().create_task(
                self._relist(), name=f"mcp relist {self.name}")

    async def _relist(self) -> None:
        while self._stale and self._client is not None:
            self._stale = False
            client = self._client
            with suppress(MCPError, *GONE):
                listed = await _list_tools(client, cache_mode="refresh")
                self.prompts, self.resources = await _offers(client)
                self.tools = [McpTool(self, tool) for tool in listed]
                self._changed()

    async def _lists_settled(self) -> None:
        """Until the lists the server said changed are listed again (bounded: a server
        slow to list them does not hold the call's result for long)."""
        task = self._relisting
        if task is not None and not task.done():
            await asyncio.wait([task], timeout=RELIST_WAIT)

    def prompt_commands(self) -> list[McpPrompt]:
        return [McpPrompt.of(self, prompt) for prompt in self.prompts]

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    # -- calls ----------------------------------------------------------------------------

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> mcp_types.GetPromptResult:
        return await self._request(lambda client: client.get_prompt(name, arguments), f"the prompt {name}")

    async def read_resource(self, uri: str) -> mcp_types.ReadResourceResult:
        return await self._request(lambda client: client.read_resource(uri), uri)

    async def _request(self, send: Callable[[Client], Awaitable[T]], what: str) -> T:
        """One request of the user's (a prompt, a resource), with the errors of a call."""
        client = self._connected()
        try:
            return await asyncio.wait_for(send(client), self.call_timeout)
        except TimeoutError:
            raise ToolError(f"the MCP server {self.name!r} did not send {what} in time") from None
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED:
                raise self._lost(CLOSED) from None
            raise ToolError(f"the MCP server {self.name!r} refused {what}: {exc.message}") from None
        except GONE as exc:
            raise self._lost(f"could not be reached: {_describe(exc)}") from None

    def _connected(self) -> Client:
        client = self._client
        if client is None or self.state != "connected":
            why = f"{self.state}: {self.error.splitlines()[0]}" if self.error else self.state
            raise ToolError(
                f"not run: the MCP server {self.name!r} is {why} "
                f"(the user can restart it with /mcp restart {self.name})"
            )
        return client

    async def call(
        self, tool: str, arguments: dict[str, Any], on_output: OutputCallback | None
    ) -> ToolOutput:
        client = self._connected()

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            if on_output is not None:
                on_output(_progress_line(progress, total, message))

        try:
            result = await client.call_tool(
                tool, arguments, read_timeout_seconds=self.call_timeout, progress_callback=progress
            )
        except MCPError as exc:
            if exc.code == mcp_types.REQUEST_TIMEOUT:
                raise ToolError(
                    f"{tool} on the MCP server {self.name!r} did not finish within "
                    f"{self.call_timeout:g} s and was cancelled"
                ) from None
            if exc.code != mcp_types.CONNECTION_CLOSED:
                raise ToolError(f"the MCP server {self.name!r} refused the call: {exc.message}") from None
            raise self._lost(CLOSED) from None
        except GONE as exc:
            raise self._lost(f"could not be reached: {_describe(exc)}") from None
        await self._lists_settled()
        text, images = await asyncio.to_thread(result_output, result, tool)
        return ToolOutput(text=text, is_error=result.is_error, images=tuple(images))


class _EndWatch:
    """A read stream that reports its end: for stdio, the server's exit."""

    def __init__(self, stream: Any, on_end: Any) -> None:
        self._stream = stream
        self._on_end = on_end

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)  # last_context and the rest pass through

    def __aiter__(self) -> _EndWatch:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self._stream.__anext__()
        except (StopAsyncIteration, anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise

    async def receive(self) -> Any:
        try:
            return await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> _EndWatch:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._stream.aclose()


@asynccontextmanager
async def _http(config: HttpServer, auth: SignIn | None) -> AsyncIterator[Any]:
    async with httpx2.AsyncClient(
        headers=config.headers, timeout=httpx2.Timeout(30, read=300), auth=auth
    ) as http, streamable_http_client(config.url, http_client=http) as streams:
        yield streams


async def _no_sampling(context: Any, params: Any) -> mcp_types.ErrorData:
    return mcp_types.ErrorData(
        code=mcp_types.INVALID_REQUEST,
        message="neocode does not let a server use the user's model (sampling is refused)",
    )


async def _offers(client: Client) -> tuple[list[mcp_types.Prompt], list[mcp_types.Resource]]:
    """The prompts and resources the server offers; none when it has none or fails to list."""
    capabilities = client.server_capabilities
    prompts: list[mcp_types.Prompt] = []
    resources: list[mcp_types.Resource] = []
    with suppress(MCPError):
        if capabilities is not None and capabilities.prompts is not None:
            prompts = (await client.list_prompts(cache_mode="refresh")).prompts[:MAX_LISTED]
    with suppress(MCPError):
        if capabilities is not None and capabilities.resources is not None:
            resources = (await client.list_resources(cache_mode="refresh")).resources[:MAX_LISTED]
    return prompts, resources


async def _list_tools(client: Client, cache_mode: Any = "use") -> list[mcp_types.Tool]:
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor, cache_mode=cache_mode)
        tools += page.tools
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


async def _child_with(token: str) -> int | None:
    """Our child process whose environment carries ``token``: the server just started.

    Looked for a few times: between fork and exec the child still has our environment.
    """
    for _ in range(FIND_TRIES):
        for child in psutil.Process().children():
            with suppress(psutil.Error):
                if child.environ().get(MARKER) == token:
                    return int(child.pid)
        await anyio.sleep(0.01)
    return None


def _progress_line(done: float, total: float | None, message: str | None) -> str:
    amount = f"{done:g}/{total:g}" if total else f"{done:g}"
    return f"progress {amount}" + (f": {message}" if message else "") + "\n"


def _describe(exc: BaseException) -> str:
    """The first real error inside the task groups' exception groups, in one line."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return CLOSED if exc.code == mcp_types.CONNECTION_CLOSED else exc.message
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"command not found: {exc.filename}"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror + (f": {exc.filename}" if exc.filename else "")
    return str(exc) or type(exc).__name__


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "server"
