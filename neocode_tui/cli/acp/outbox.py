"""The order ``session/update``s reach the client in: the order they happened."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from neocode_tui.cli.acp.updates import Update

log = logging.getLogger("neocode.acp")


class Outbox:
    """Updates sent one at a time, in the order they were put; ``flush`` waits for all.

    Loop events arrive synchronously while sending is async: this keeps their order, and
    lets a prompt's response wait until every update before it has gone out.
    """

    def __init__(self, send: Callable[[Update], Awaitable[None]]) -> None:
        self._send = send
        self._queue: asyncio.Queue[Update] = asyncio.Queue()
        self._pump = asyncio.create_task(self._run(), name="acp-outbox")

    def put(self, update: Update) -> None:
        self._queue.put_nowait(update)

    async def flush(self) -> None:
        await self._queue.join()

    async def aclose(self) -> None:
        self._pump.cancel()
        await asyncio.gather(self._pump, return_exceptions=True)

    async def _run(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                await self._send(update)
            except Exception as exc:  # the client went away: drop updates, keep flush working
                log.warning("could not send a session update: %s", exc)
            finally:
                self._queue.task_done()
