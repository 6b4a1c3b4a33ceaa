"""A real HTTP/1.1 model server on 127.0.0.1 for tests, speaking raw bytes.

Built on ``asyncio.start_server`` rather than a framework so a test controls every byte:
how the body is chunked, pauses between chunks, a stall before the first byte, a connection
cut in the middle of a chunk. Each request pops the next queued ``Response`` (or calls a
queued function with the request's JSON, for scripted models that answer what they are sent).
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
           404: "Not Found", 408: "Request Timeout", 409: "Conflict", 422: "Unprocessable Entity",
           429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
           503: "Service Unavailable", 529: "Overloaded"}


@dataclass
class Response:
    """One scripted HTTP response.

    ``body`` as bytes is cut into ``chunk_sizes`` (an int, or sizes used in turn and
    cycled); as a list it is sent one element per write; as any other iterable (a
    generator: endless or huge bodies) it is drawn one write at a time, never held whole.
    ``delay`` pauses between writes.
    ``stall`` seconds of silence happen after ``stall_at`` body bytes (0: right after the
    headers, which is a first-byte timeout for the client). ``cut_after`` closes the socket
    after that many body bytes, without finishing the chunked encoding (a dropped connection).
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | list[bytes] | Iterable[bytes] = b""
    chunk_sizes: int | Sequence[int] | None = None
    delay: float = 0.0
    cut_after: int | None = None
    stall: float = 0.0
    stall_at: int = 0
    wait: asyncio.Event | None = None
    """The body waits for this event after the headers (a reply held until the test says)."""

    def writes(self) -> Iterable[bytes]:
        """The body split into the pieces written one by one (cut and stall applied)."""
        if not isinstance(self.body, bytes | list):
            return self.body
        if isinstance(self.body, list):
            pieces = list(self.body)
        elif self.chunk_sizes is None:
            pieces = [self.body]
        else:
            sizes = [self.chunk_sizes] if isinstance(self.chunk_sizes, int) else list(self.chunk_sizes)
            pieces, position, turn = [], 0, 0
            while position < len(self.body):
                size = max(1, sizes[turn % len(sizes)])
                pieces.append(self.body[position : position + size])
                position += size
                turn += 1
        for limit in (self.cut_after, self.stall_at if self.stall else None):
            if limit is not None:
                pieces = _split_at(pieces, limit)
        return [piece for piece in pieces if piece]


def _split_at(pieces: list[bytes], offset: int) -> list[bytes]:
    """The same bytes, with a piece boundary at ``offset``."""
    out, seen = [], 0
    for piece in pieces:
        if seen < offset < seen + len(piece):
            cut = offset - seen
            out += [piece[:cut], piece[cut:]]
        else:
            out.append(piece)
        seen += len(piece)
    return out


class Request(NamedTuple):
    method: str
    path: str
    headers: dict[str, str]
    """Header names in lower case."""
    json: Any


Responder = Callable[[Any], Response]


class ModelServer:
    """The server. ``url`` is ``http://127.0.0.1:PORT``; start with ``async with``."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self._queue: deque[Response | Responder] = deque()
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self.url = ""
        self.connections = 0
        """Connections accepted so far (a client that reuses its connections keeps this low)."""

    def enqueue(self, *responses: Response | Responder) -> None:
        self._queue.extend(responses)

    async def __aenter__(self) -> ModelServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()
        for handler in list(self._handlers):
            handler.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        handler = asyncio.current_task()
        assert handler is not None
        self._handlers.add(handler)
        self.connections += 1
        try:
            while await self._answer_one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client went away, or the test is over
        finally:
            self._handlers.discard(handler)
            writer.close()

    async def _answer_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Serve one request; False when the connection is done."""
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
        payload = json.loads(raw) if raw else None
        self.requests.append(Request(method, path, headers, payload))

        scripted = self._queue.popleft() if self._queue else _nothing_queued()
        response = scripted if isinstance(scripted, Response) else scripted(payload)
        return await self._send(response, writer)

    async def _send(self, response: Response, writer: asyncio.StreamWriter) -> bool:
        reason = REASONS.get(response.status, "Status")
        headers = {"content-type": "text/event-stream", **response.headers}
        head = f"HTTP/1.1 {response.status} {reason}\r\n"
        head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        head += "transfer-encoding: chunked\r\n\r\n"
        writer.write(head.encode("latin-1"))
        await writer.drain()
        if response.wait is not None:
            await response.wait.wait()
        sent = 0
        for index, piece in enumerate(response.writes()):
            if response.stall and sent == response.stall_at:
                await asyncio.sleep(response.stall)
            if response.cut_after is not None and sent >= response.cut_after:
                writer.transport.abort()
                return False
            if index and response.delay:
                await asyncio.sleep(response.delay)
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
            sent += len(piece)
        if response.stall and sent == response.stall_at:
            await asyncio.sleep(response.stall)
        if response.cut_after is not None and sent >= response.cut_after:
            writer.transport.abort()
            return False
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True


def _nothing_queued() -> Response:
    error = {"error": {"message": "test server: no response queued", "type": "test"}}
    return Response(status=500, headers={"content-type": "application/json"},
                    body=json.dumps(error).encode())


def json_response(status: int, payload: Any, headers: dict[str, str] | None = None) -> Response:
    """A plain JSON (error) response, as APIs send for 4xx/5xx."""
    return Response(status=status, headers={"content-type": "application/json", **(headers or {})},
                    body=json.dumps(payload).encode())


def open_sockets(server: ModelServer) -> int:
    """This process's established TCP connections to ``server``, as the kernel counts them."""
    import psutil

    port = int(server.url.rsplit(":", 1)[1])
    return sum(1 for connection in psutil.Process().net_connections(kind="tcp")
               if connection.raddr and connection.raddr.port == port
               and connection.status == psutil.CONN_ESTABLISHED)
