"""Lines read from a byte stream in bounded memory: the input of ``neocode acp`` and of
``-p --input-format stream-json``, where one line can be as long as the writer likes."""

from __future__ import annotations

import asyncio
import os
import stat
import sys

CHUNK_BYTES = 1 << 16


class LineTooLong(ValueError):
    """A line over the limit: consumed to its end, not kept."""


class BoundedLines:
    def __init__(self, reader: asyncio.StreamReader, max_line: int) -> None:
        self._reader = reader
        self.max_line = max_line
        self._buffer = bytearray()
        self._start = 0
        """Where the next line begins in the buffer."""
        self._eof = False

    async def next(self) -> bytes | None:
        """One line without its newline (None at the end of input), read a chunk at a time
        and each byte looked at once; a line over the limit is consumed to its end but not
        kept (``LineTooLong``), so memory stays bounded by the limit whatever comes in."""
        oversize = False
        scanned = self._start
        while True:
            end = self._buffer.find(b"\n", scanned)
            if end >= 0:
                line = bytes(self._buffer[self._start:end])
                self._start = end + 1
                if oversize or len(line) > self.max_line:
                    raise LineTooLong(f"a line over {self.max_line} bytes")
                return line
            del self._buffer[:self._start]  # once a chunk: lines already taken
            self._start = 0
            if len(self._buffer) > self.max_line:
                oversize = True
                self._buffer.clear()
            scanned = len(self._buffer)
            if self._eof:
                line = bytes(self._buffer)
                self._buffer.clear()
                if oversize:
                    raise LineTooLong(f"a line over {self.max_line} bytes")
                return line or None
            chunk = await self._reader.read(CHUNK_BYTES)
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True


async def stdin_lines(max_line: int) -> BoundedLines:
    """stdin as bounded lines without blocking the loop: a pipe or a terminal is read as
    it comes, a file (``< messages.jsonl``) in a thread."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=max_line)
    if sys.stdin is None or stat.S_ISREG(os.fstat(sys.stdin.fileno()).st_mode):
        _FEEDING.add(feeding := asyncio.create_task(_feed(reader)))
        feeding.add_done_callback(_FEEDING.discard)
    else:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    return BoundedLines(reader, max_line)


_FEEDING: set[asyncio.Task[None]] = set()
"""The tasks reading a file on stdin (held: the loop keeps only weak references)."""


async def _feed(reader: asyncio.StreamReader) -> None:
    stream = sys.stdin.buffer if sys.stdin is not None else None
    while stream is not None and (chunk := await asyncio.to_thread(stream.read, CHUNK_BYTES)):
        reader.feed_data(chunk)
    reader.feed_eof()
