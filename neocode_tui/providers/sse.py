"""An incremental Server-Sent Events decoder: bytes in, events out, any split of the bytes.

This is the hot path of every streamed reply, so it works on whole reads rather than byte
by byte: it decodes everything up to the last line end of a read at once (a line end byte
is never inside a UTF-8 sequence, so a character split between reads stays in the tail),
then walks the lines. Follows the WHATWG rules: LF, CRLF and CR line ends, comments,
``event:``/``data:``/``id:``/``retry:`` fields, multi-line data, an optional space after
the colon, one leading BOM.
"""

from __future__ import annotations

from typing import NamedTuple


class SSEEvent(NamedTuple):
    event: str
    """The ``event:`` field; ``"message"`` when the server sent none."""
    data: str


class SSEOverflow(ValueError):
    """A line or an event grew past the decoder's bound (a hostile or broken server)."""


class SSEDecoder:
    """Feed it reads with ``feed``; call ``close`` when the body ends.

    Memory is bounded: a line that never ends, or an event whose data lines never reach a
    blank line, raises ``SSEOverflow`` once it passes ``max_event_bytes``.
    """

    __slots__ = ("_tail", "_skip_lf", "_started", "_event", "_data", "_size", "_max",
                 "last_event_id", "retry", "lines_seen")

    def __init__(self, *, max_event_bytes: int = 16 << 20) -> None:
        self._max = max_event_bytes
        self._size = 0  # characters in the event being built
        self.lines_seen = 0
        """Complete lines so far, comments included: the server's signs of life."""
        self._tail = bytearray()
        self._skip_lf = False  # the last read ended in CR: a following LF is the same line end
        self._started = False
        self._event = ""
        self._data: list[str] = []
        self.last_event_id = ""
        self.retry: int | None = None
        """The server's ``retry:`` advice in milliseconds (kept, as the spec asks)."""

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        if self._skip_lf and chunk:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        end = max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
        if end < 0:
            self._tail += chunk
            if len(self._tail) > self._max:
                raise SSEOverflow(f"a line longer than {_size(self._max)} without an end")
            return []
        if self._tail:
            complete = bytes(self._tail) + chunk[: end + 1]
            self._tail = bytearray(chunk[end + 1 :])
        else:
            complete = chunk[: end + 1]
            if end + 1 < len(chunk):
                self._tail += chunk[end + 1 :]
        self._skip_lf = end == len(chunk) - 1 and chunk[end] == 13
        if len(self._tail) > self._max:
            raise SSEOverflow(f"a line longer than {_size(self._max)} without an end")
        return self._lines(complete.decode("utf-8", "replace"))

    @property
    def pending(self) -> bool:
        """True while an unfinished line is held (bytes after the last line end)."""
        return bool(self._tail)

    def close(self) -> list[SSEEvent]:
        """The body ended. An event whose lines are all complete is delivered even without
        the closing blank line; an event with a line cut off mid-way is truncated: dropped."""
        if self._tail:
            self._tail.clear()
            self._data.clear()
            return []
        return self._lines("\n")

    def _lines(self, text: str) -> list[SSEEvent]:
        if not self._started:
            self._started = True
            if text[:1] == "\ufeff":
                text = text[1:]
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        events: list[SSEEvent] = []
        data = self._data
        lines = text.split("\n")[:-1]
        self.lines_seen += len(lines)
        for line in lines:
            if not line:
                if data:
                    events.append(SSEEvent(self._event or "message", "\n".join(data)))
                    data.clear()
                    self._size = 0
                self._event = ""
            elif line[:5] == "data:":
                data.append(line[6:] if line[5:6] == " " else line[5:])
                self._size += len(line)
                if self._size > self._max:
                    raise SSEOverflow(f"an event larger than {_size(self._max)}")
            elif line[0] != ":":
                self._field(line)
        return events

    def _field(self, line: str) -> None:
        name, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":  # "data" alone on a line: an empty data line
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self.last_event_id = value
        elif name == "retry" and value.isdigit():
            self.retry = int(value)


def _size(count: int) -> str:
    return f"{count >> 20} MiB" if count >= 1 << 20 else f"{count} bytes"
