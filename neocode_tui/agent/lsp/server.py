"""One language server process, spoken to through pygls's client (its JSON-RPC framing and
lsprotocol's types): started in the workspace, told of the files NeoCode shows it, asked with
a time limit on every wait, and ended with its process group.

A server that cannot start, exits, hangs or writes what is not LSP never holds a turn: every
request has a deadline, and what went wrong is said in words (its exit code and the last lines
it wrote to stderr)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections import deque
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.client import BaseLanguageClient
from pygls.protocol import LanguageServerProtocol

from neocode_tui import __version__
from neocode_tui.agent.lsp.config import ServerConfig, ServerProblem

START_LIMIT = 30.0
"""Seconds a server may take to answer ``initialize`` (a large project's first index)."""
REQUEST_LIMIT = 15.0
DIAGNOSTICS_LIMIT = 10.0
"""Seconds to wait for a file's diagnostics after it was shown to the server..."""
FIRST_DIAGNOSTICS_LIMIT = 30.0
"""... and for the first ones a server gives, which wait for it to load the project."""
SETTLE = 0.3
"""Quiet after a file's diagnostics before they count as complete (servers send them in parts)."""
STOP_LIMIT = 3.0
STDERR_LINES = 5
LANGUAGES = {".py": "python", ".pyi": "python", ".ts": "typescript", ".tsx": "typescriptreact",
             ".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript",
             ".mts": "typescript", ".cts": "typescript", ".go": "go", ".rs": "rust"}

T = TypeVar("T")

# pygls reports what it cannot read through logging: never onto the screen or stderr.
logging.getLogger("pygls").addHandler(logging.NullHandler())
logging.getLogger("pygls").propagate = False


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, reading ``initialize``'s answer as plain JSON: NeoCode uses none of
    it, and servers send capabilities lsprotocol's strict types refuse (pylsp's
    ``notebookDocumentSync``), which would leave the answer unread until the time limit."""

    def get_result_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        return None if method == types.INITIALIZE else super().get_result_type(method)


class LanguageServer:
    """The server ``name`` of ``config`` for the folder ``root``, run as ``argv`` (already
    wrapped in the sandbox where there is one) with ``env``."""

    def __init__(self, name: str, config: ServerConfig, root: Path, argv: list[str], env: dict[str, str]) -> None:
        self.name, self.config, self.root = name, config, root
        self._argv, self._env = argv, env
        self._client = BaseLanguageClient("neocode", __version__, protocol_cls=_Protocol)
        self._versions: dict[str, int] = {}
        self._published: dict[str, list[types.Diagnostic]] = {}
        self._arrived: dict[str, asyncio.Event] = {}
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._tasks: list[asyncio.Task[None]] = []
        self._warm = False
        """It has given diagnostics once (its project is loaded)."""
        self._ready = False
        """It answered ``initialize``: it may be asked to shut down."""
        self._answer_server_requests()

    @property
    def running(self) -> bool:
        process = self._client._server
        return process is not None and process.returncode is None and not self._client.stopped

    async def start(self) -> None:
        try:
            await self._client.start_io(self._argv[0], *self._argv[1:], cwd=self.root, env=self._env,
                                        start_new_session=True)
        except OSError as exc:
            raise ServerProblem(f"the language server {self.name} ({self.config.command[0]}) could not start: "
                                f"{exc.strerror or exc}") from exc
        process = self._client._server
        if process is not None and process.stderr is not None:
            self._tasks.append(asyncio.create_task(self._read_stderr(process.stderr)))
        params = types.InitializeParams(
            process_id=None, root_uri=self.root.as_uri(),  # none: in a sandbox our pid is not its
            workspace_folders=[types.WorkspaceFolder(uri=self.root.as_uri(), name=self.root.name)],
            capabilities=_CAPABILITIES,
        )
        try:
            await self._ask(self._client.protocol.send_request_async(types.INITIALIZE, params), START_LIMIT, "start")
        except ServerProblem:
            await self.aclose()
            raise
        self._client.initialized(types.InitializedParams())
        self._ready = True

    def show(self, path: Path, text: str) -> None:
        """Tell the server the file's content now (opened the first time, then changed)."""
        if not self.running:
            raise self._stopped()
        uri = path.as_uri()
        self._arrived.setdefault(uri, asyncio.Event()).clear()
        version = self._versions.get(uri, 0) + 1
        self._versions[uri] = version
        if version == 1:
            language = LANGUAGES.get(path.suffix.lower(), path.suffix.lstrip("."))
            self._client.text_document_did_open(types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)))
        else:
            self._client.text_document_did_change(types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                [types.TextDocumentContentChangeWholeDocument(text=text)]))

    async def diagnostics(self, path: Path) -> list[types.Diagnostic]:
        """The diagnostics the server publishes for ``path`` after it was last shown."""
        uri = path.as_uri()
        arrived = self._arrived.setdefault(uri, asyncio.Event())
        limit = DIAGNOSTICS_LIMIT if self._warm else FIRST_DIAGNOSTICS_LIMIT
        await self._ask(arrived.wait(), limit, "give diagnostics")
        self._warm = True
        while True:  # more may follow in parts: wait for a quiet moment
            arrived.clear()
            try:
                await asyncio.wait_for(arrived.wait(), SETTLE)
            except TimeoutError:
                break
        return self._published.get(uri, [])

    async def request(self, method: str, params: Any) -> Any:
        """An answer to ``method`` (``textDocument/definition``...), within the time limit."""
        return await self._ask(self._client.protocol.send_request_async(method, params), REQUEST_LIMIT,
                               f"answer {method}")

    async def aclose(self) -> None:
        """``shutdown`` and ``exit`` if it still runs, then its process group ends."""
        if self.running and self._ready:
            try:
                await asyncio.wait_for(self._client.shutdown_async(None), STOP_LIMIT)
                self._client.exit(None)
            except Exception:  # a server that cannot stop politely is stopped anyway
                pass
        process = self._client._server
        if process is not None and process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), STOP_LIMIT if self._ready else 0)
            except TimeoutError:
                _kill_group(process.pid)
                await process.wait()
        if process is not None:
            _kill_group(process.pid)  # what it started
        try:
            await asyncio.wait_for(self._client.stop(), STOP_LIMIT)  # type: ignore[no-untyped-call]
        except (TimeoutError, Exception):
            pass
        for task in self._tasks:
            task.cancel()

    async def _ask(self, waiting: Awaitable[T], limit: float, what: str) -> T:
        try:
            return await asyncio.wait_for(waiting, limit)
        except TimeoutError:
            raise ServerProblem(f"the language server {self.name} did not {what} within {limit:g} s"
                                f"{self._said()}") from None
        except ServerProblem:
            raise
        except Exception as exc:
            if not self.running:
                raise self._stopped() from None
            raise ServerProblem(f"the language server {self.name} could not {what}: {_short(exc)}") from None

    def _stopped(self) -> ServerProblem:
        process = self._client._server
        code = f" (exit code {process.returncode})" if process is not None and process.returncode is not None else ""
        return ServerProblem(f"the language server {self.name} stopped{code}{self._said()}")

    def _said(self) -> str:
        return f"; it wrote: {' | '.join(self._stderr)}" if self._stderr else ""

    async def _read_stderr(self, stream: asyncio.StreamReader) -> None:
        """Drained so that a talkative server never blocks on a full pipe; the last lines
        are kept to say why it failed (with the errors it logs over LSP)."""
        while line := await stream.readline():
            text = line.decode("utf-8", "replace").strip()
            if text:
                self._stderr.append(text[:200])

    def _answer_server_requests(self) -> None:
        feature = self._client.feature

        @feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]
        def published(_: object, params: types.PublishDiagnosticsParams) -> None:
            self._published[params.uri] = list(params.diagnostics)
            self._arrived.setdefault(params.uri, asyncio.Event()).set()

        @feature(types.WINDOW_LOG_MESSAGE)  # type: ignore[untyped-decorator]
        def logged(_: object, params: types.LogMessageParams) -> None:
            if params.type in (types.MessageType.Error, types.MessageType.Warning):
                self._stderr.append(" ".join(params.message.split())[:200])

        @feature(types.WORKSPACE_CONFIGURATION)  # type: ignore[untyped-decorator]
        def configuration(_: object, params: types.ConfigurationParams) -> Sequence[object]:
            return [None for _ in params.items]

        for method in (types.CLIENT_REGISTER_CAPABILITY, types.CLIENT_UNREGISTER_CAPABILITY,
                       types.WINDOW_WORK_DONE_PROGRESS_CREATE, types.WINDOW_SHOW_MESSAGE_REQUEST):
            feature(method)(_nothing)


def _nothing(*_: object) -> None:
    return None


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _short(exc: Exception) -> str:
    return (str(exc) or type(exc).__name__).splitlines()[0][:200]


_CAPABILITIES = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(
        synchronization=types.TextDocumentSyncClientCapabilities(did_save=False),
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.PlainText, types.MarkupKind.Markdown]),
        definition=types.DefinitionClientCapabilities(link_support=False),
        references=types.ReferenceClientCapabilities(),
        document_symbol=types.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=True),
    ),
    workspace=types.WorkspaceClientCapabilities(workspace_folders=True, configuration=True),
)
