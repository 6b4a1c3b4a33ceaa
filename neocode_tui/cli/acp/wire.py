"""The JSON-RPC lines of ``neocode acp``, checked before the ACP SDK sees them.

The SDK's own stdio reader hands every parsed line to its dispatcher, which assumes a
JSON-RPC object: one line such as ``[]``, ``5`` or ``{"id": [1], "result": 1}`` raised
inside its receive loop and ended the agent with every session in it. Here each line is
read in bounded pieces, decoded as strict UTF-8, parsed and checked against JSON-RPC 2.0's
shape; a line that fails gets a JSON-RPC error (``-32700`` or ``-32600``, its id when one
could be read, else null) and the agent reads the next one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from neocode_tui.cli.lines import BoundedLines, LineTooLong

log = logging.getLogger("neocode.acp")

MAX_LINE_BYTES = 50 * 1024 * 1024
"""The longest message taken (the SDK's own limit, ``acp.core.DEFAULT_STDIO_BUFFER_LIMIT_BYTES``,
room for large embedded files); a longer line is skipped to its end without being kept,
and answered with an error. Written out: importing the SDK is what ``handshake`` avoids."""
READ_AHEAD_BYTES = 1 << 20
"""What the stdin stream buffers ahead of the reader before it stops reading the pipe."""
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""A request's params to its result."""


class BadMessage(Exception):
    """A line that is not a JSON-RPC message: answered with ``code`` and the line's id."""

    def __init__(self, code: int, detail: str, message_id: Any = None) -> None:
        super().__init__(detail)
        self.code = code
        self.message_id = message_id


class JsonRpcLines:
    """An ACP SDK transport (send/receive/close of JSON-RPC objects) over byte streams."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 max_line: int = MAX_LINE_BYTES) -> None:
        self._lines = BoundedLines(reader, max_line)
        self._writer = writer
        self._sending = asyncio.Lock()
        self._put_back: list[dict[str, Any]] = []
        self._here: dict[str, Handler] = {}
        self._answering: set[asyncio.Task[None]] = set()

    def answer_here(self, method: str, handler: Handler) -> None:
        """Requests for ``method`` answered by ``handler`` (its result, or the error it raises
        with its ``code``), never passed on: a protocol method the SDK does not route."""
        self._here[method] = handler

    async def send(self, message: dict[str, Any]) -> None:
        # default=str: a validation error's details may hold objects JSON cannot encode,
        # and one such reply must not stop every later one.
        data = json.dumps(message, separators=(",", ":"), default=str).encode() + b"\n"
        async with self._sending:
            self._writer.write(data)
            await self._writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        """The next valid message; None at the end of input, once what was asked here is
        answered."""
        while (message := await self._read()) is not None:
            if message.get("method") not in self._here or "id" not in message:
                return message
            task = asyncio.create_task(self._answer(message, self._here[message["method"]]))
            self._answering.add(task)
            task.add_done_callback(self._answering.discard)
        await asyncio.gather(*self._answering)
        return None

    async def _read(self) -> dict[str, Any] | None:
        if self._put_back:
            return self._put_back.pop()
        while True:
            try:
                line = await self._next_line()
                if line is None:
                    return None
                if line.strip():
                    return parse_message(line)
            except BadMessage as exc:
                log.warning("bad JSON-RPC message: %s", exc)
                await self.send(error_reply(exc))

    async def _answer(self, message: dict[str, Any], handler: Handler) -> None:
        params = message.get("params", {})
        try:
            reply: dict[str, Any] = {"result": await handler(params if isinstance(params, dict) else {})}
        except Exception as exc:  # the handler's refusal, or its failure: both answered
            code = getattr(exc, "code", None)
            if not isinstance(code, int):
                log.exception("%s failed", message["method"])
                code = INTERNAL_ERROR
            reply = {"error": {"code": code, "message": str(exc) or type(exc).__name__}}
        try:
            await self.send({"jsonrpc": "2.0", "id": message["id"], **reply})
        except OSError:  # the client is gone: nobody is left to tell
            log.info("%s answered after the client left", message["method"])

    def put_back(self, message: dict[str, Any]) -> None:
        """Make ``message`` the next one ``receive`` returns: read early, handled later."""
        self._put_back.append(message)

    async def close(self) -> None:
        self._writer.close()

    async def _next_line(self) -> bytes | None:
        try:
            return await self._lines.next()
        except LineTooLong:
            raise BadMessage(INVALID_REQUEST, f"a message over {self._lines.max_line} bytes") from None


def parse_message(line: bytes) -> dict[str, Any]:
    """``line`` as a JSON-RPC 2.0 request, notification or response, or BadMessage."""
    try:
        text = line.decode("utf-8")
        message = json.loads(text)
    except UnicodeDecodeError:
        raise BadMessage(PARSE_ERROR, "the line is not UTF-8") from None
    except (ValueError, RecursionError) as exc:
        raise BadMessage(PARSE_ERROR, f"not JSON: {exc}") from None
    if _SURROGATE_ESCAPE.search(line) and _has_lone_surrogate(message):
        raise BadMessage(PARSE_ERROR, "a string holds a lone UTF-16 surrogate")
    if isinstance(message, list):
        raise BadMessage(INVALID_REQUEST, "batches are not supported: send one object a line")
    if not isinstance(message, dict):
        raise BadMessage(INVALID_REQUEST, "a message must be a JSON object")
    check_shape(message)
    return message


def check_shape(message: dict[str, Any]) -> None:
    """The JSON-RPC 2.0 rules the SDK relies on without checking them."""
    if "id" in message and not _valid_id(message["id"]):
        raise BadMessage(INVALID_REQUEST, "id must be a string, an integer or null")
    # A bad request is answered under its id; a bad response under null, as the client's
    # own requests have ids of the same kind.
    message_id = message.get("id") if "method" in message else None
    if message.get("jsonrpc") != "2.0":
        raise BadMessage(INVALID_REQUEST, 'jsonrpc must be "2.0"', message_id)
    if "method" in message:
        if not isinstance(message["method"], str):
            raise BadMessage(INVALID_REQUEST, "method must be a string", message_id)
        if not isinstance(message.get("params", {}), dict | list):
            raise BadMessage(INVALID_REQUEST, "params must be an object or an array", message_id)
        return
    if "id" not in message:
        raise BadMessage(INVALID_REQUEST, "a message needs a method or an id")
    if "result" not in message and not isinstance(message.get("error"), dict):
        raise BadMessage(INVALID_REQUEST, "a response needs a result or an error object",
                         message_id)


def error_reply(error: BadMessage) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": error.message_id,
            "error": {"code": error.code, "message": _TITLES[error.code], "data": str(error)}}


_TITLES = {PARSE_ERROR: "Parse error", INVALID_REQUEST: "Invalid Request"}


def _valid_id(value: Any) -> bool:
    return value is None or isinstance(value, str) or (
        isinstance(value, int) and not isinstance(value, bool))


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(item) for item in value)
    return False
