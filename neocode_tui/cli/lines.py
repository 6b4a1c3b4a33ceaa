"""Lines read from a byte stream in bounded memory: the input of ``neocode acp`` and of
``-p --input-format stream-json``, where one line can be as long as the writer likes."""

from __future__ import annotations

import asyncio

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
