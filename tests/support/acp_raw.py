"""``neocode acp`` on plain pipes, for what the SDK's client would hide: every byte the agent
writes to stdout, and messages no editor sends."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.headless import NEOCODE
from tests.support.waits import PATIENCE


class RawAgent:
    """``neocode acp`` on plain pipes: every byte it writes to stdout is read back here."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[bytes] = []
        self.next_id = 0

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        await self.send(json.dumps(message).encode() + b"\n")
        return await self.reply(lambda reply: reply.get("id") == self.next_id)

    async def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        await self.process.stdin.drain()

    async def question(self, method: str) -> dict[str, Any]:
        """The next request the agent sends the client with ``method``."""
        return await self._next(lambda message: message.get("method") == method and "id" in message)

    async def reply(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first response (not a request or notification) that is ``wanted``."""
        return await self._next(lambda message: "method" not in message and wanted(message))

    async def _next(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The next message from the agent that is ``wanted``; the others are kept in ``lines``."""
        assert self.process.stdout is not None
        while True:
            line = await asyncio.wait_for(self.process.stdout.readline(), PATIENCE)
            assert line, "the agent closed stdout"
            self.lines.append(line)
            message = json.loads(line)
            if wanted(message):
                return message


async def start_raw(env: dict[str, str], cwd: Path, *args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        NEOCODE, *args, "acp", env={"PATH": "/usr/bin:/bin", **env}, cwd=cwd,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
