"""A response body read in a task of its own, handed over as everything that has arrived.

httpx gives a body one HTTP chunk at a time, and model servers flush one SSE event per
chunk: read that way, a fast stream pays the whole path behind the reader (SSE decoding, the
dialect, the scrubber, the loop, the collector, the screen) once for every few characters.
Here a task reads the chunks as they come and the reader takes, at each step, all of them at
once: what one socket read brought is decoded together, and its deltas can travel as one
event. A slow stream is read exactly as before, a chunk as it arrives; nothing is held back.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

LIMIT = 1 << 20
"""Bytes read ahead at most before the reading waits for the reader (a slow consumer)."""


_SETTLE_SECONDS = 5.0
"""How long a body that is closing itself may take before its read is cancelled anyway."""


def _never() -> bool:
    return False


class ReadAhead:
    """``chunks`` read ahead; ``take()`` returns what has arrived since the last call.

    ``closing`` says when the body has ended and its iterator is closing it (httpx marks a
    response closed as the last read returns, then gives its connection back to the pool):
    a cancel landing there would strand the connection as busy, so that read is let finish.
    """

    def __init__(self, chunks: AsyncIterator[bytes], *, limit: int = LIMIT,
                 closing: Callable[[], bool] = _never) -> None:
        self._chunks = chunks
        self._limit = limit
        self._closing = closing
        self._buffer: list[bytes] = []
        self._size = 0
        self._arrived = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        self._ended = False
        self._failure: Exception | None = None
        self._task: asyncio.Task[None] | None = None

    async def take(self) -> bytes | None:
        """Every byte that arrived since the last call, waiting for the first of them; None
        once the body has ended. A failure of the read is raised after the bytes before it."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._read())
        await self._arrived.wait()
        buffer = self._buffer
        if buffer:
            data = buffer[0] if len(buffer) == 1 else b"".join(buffer)
            buffer.clear()
            self._size = 0
            self._room.set()
            if not self._ended:
                self._arrived.clear()
            return data
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure
        return None

    async def _read(self) -> None:
        try:
            async for chunk in self._chunks:
                self._buffer.append(chunk)
                self._size += len(chunk)
                self._arrived.set()
                if self._size >= self._limit:
                    self._room.clear()
                    await self._room.wait()
        except Exception as exc:  # the reader's to handle, at its next step
            self._failure = exc
        finally:
            self._ended = True
            self._arrived.set()

    async def aclose(self) -> None:
        """Stop reading (the body is closed by its owner); a body closing itself is let finish."""
        task = self._task
        if task is None or task.done():
            return
        if self._closing():
            await asyncio.wait([task], timeout=_SETTLE_SECONDS)
        if not task.done():
            task.cancel()
            await asyncio.wait([task])  # its cancellation, not ours: that one propagates
