"""A real ``neocode acp`` subprocess driven by the ACP SDK's own client side, its model the
loopback HTTP server: what Zed or Toad would see, byte for byte on stdio."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.connection import StreamEvent
from acp.schema import (
    AgentMessageChunk,
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)

from tests.support.dialects import API_KEY
from tests.support.headless import NEOCODE
from tests.support.waits import PATIENCE


@dataclass
class EditorClient:
    """The editor's side: records every update, answers permission requests from a script."""

    answers: list[str] = field(default_factory=list)
    """Option ids to pick, in order; "cancelled" dismisses the question; "hold" leaves it
    open until ``release`` is set, then dismisses it (an editor after a cancel); "refuse"
    answers with an error (an editor that shows no permission requests)."""
    release: asyncio.Event = field(default_factory=asyncio.Event)
    updates: list[Any] = field(default_factory=list)
    permissions: list[ToolCallUpdate] = field(default_factory=list)
    options: list[list[PermissionOption]] = field(default_factory=list)
    buffers: dict[str, str] | None = None
    """Open files by absolute path, unsaved text and all: given, the editor offers
    ``fs/read_text_file`` and ``fs/write_text_file``; a file not open is read from disk."""
    file_calls: list[tuple[str, str]] = field(default_factory=list)
    """``("read" | "write", path)`` for each of those requests, in order."""
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def read_text_file(self, session_id: str, path: str, **_: Any) -> ReadTextFileResponse:
        assert self.buffers is not None, "the agent used a capability the editor did not offer"
        self.file_calls.append(("read", path))
        if path not in self.buffers:
            self.buffers[path] = Path(path).read_text()
        return ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any) -> None:
        assert self.buffers is not None, "the agent used a capability the editor did not offer"
        self.file_calls.append(("write", path))
        self.buffers[path] = content  # into the buffer; the editor saves when the user does

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)
        self._changed.set()

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate, **_: Any
    ) -> RequestPermissionResponse:
        self.permissions.append(tool_call)
        self.options.append(options)
        answer = self.answers.pop(0)
        self._changed.set()
        if answer == "hold":
            await self.release.wait()
            answer = "cancelled"
        if answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        if answer == "refuse":
            raise RequestError.method_not_found("session/request_permission")
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def wait_for(self, condition: Callable[[], Any], within: float = PATIENCE) -> None:
        async with asyncio.timeout(within):
            while not condition():
                self._changed.clear()
                await self._changed.wait()

    def text(self, kind: type = AgentMessageChunk) -> str:
        return "".join(
            u.content.text for u in self.updates
            if isinstance(u, kind) and isinstance(u.content, TextContentBlock)
        )

    def calls(self) -> list[ToolCallStart]:
        return [u for u in self.updates if isinstance(u, ToolCallStart)]

    def call_updates(self, tool_call_id: str) -> list[ToolCallProgress]:
        return [u for u in self.updates
                if isinstance(u, ToolCallProgress) and u.tool_call_id == tool_call_id]


@dataclass
class Editor:
    conn: ClientSideConnection
    client: EditorClient
    process: asyncio.subprocess.Process
    traffic: list[dict[str, Any]]
    """Every JSON-RPC message either way, as sent."""
    stderr: Path
    initialized: InitializeResponse
    """The agent's answer to ``initialize``."""

    def wire(self) -> str:
        return json.dumps(self.traffic)


def agent_env(server_url: str, home: Path, **extra: str) -> dict[str, str]:
    env = {
        "NEOCODE_PROVIDER": "openai",
        "NEOCODE_BASE_URL": server_url + "/v1",
        "NEOCODE_MODEL": "test-model",
        "NEOCODE_MAX_RETRIES": "0",
        "OPENAI_API_KEY": API_KEY,
        "NEOCODE_DATA_DIR": str(home / "data"),
        "NEOCODE_CONFIG_DIR": str(home / "config"),
        "XDG_CONFIG_HOME": str(home / "xdg"),
        # The checkout under test, where it is not the installed one (a worktree).
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    env.update(extra)
    return {name: value for name, value in env.items() if value}


@asynccontextmanager
async def editor(
    env: dict[str, str], cwd: Path, client: EditorClient | None = None, *args: str
) -> AsyncIterator[Editor]:
    """``neocode [args] acp`` started as an editor starts it, initialized; closed after."""
    client = client or EditorClient()
    traffic: list[dict[str, Any]] = []
    stderr = cwd.parent / f"stderr-{len(list(cwd.parent.glob('stderr-*')))}.log"

    def observe(event: StreamEvent) -> None:
        traffic.append(event.message)

    with stderr.open("wb") as err:
        async with spawn_agent_process(
            client, NEOCODE, *args, "acp", env=env, cwd=cwd,
            # An agent that exits slowly on a busy machine is waited for, not terminated
            # as it exits (the SDK's terminate then fails on the process it just lost).
            transport_kwargs={"stderr": err.fileno(), "shutdown_timeout": PATIENCE / 2},
            observers=[observe],
        ) as (conn, process):
            initialized = await asyncio.wait_for(conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(fs=FileSystemCapabilities(
                    read_text_file=True, write_text_file=True)) if client.buffers is not None
                else ClientCapabilities(),
                client_info=Implementation(name="test-editor", version="1"),
            ), PATIENCE)
            yield Editor(conn, client, process, traffic, stderr, initialized)
