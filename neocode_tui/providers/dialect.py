"""What the two wire dialects share: the parser protocol, the bytes-to-events pump, call ids,
finish reasons and in-stream error classification.

A dialect parser turns decoded SSE events into ``StreamEvent``s. The pump puts the SSE
decoder in front of it; the live HTTP provider, the scripted provider and ``neocode replay``
all feed bytes through the same pump, so a recording plays exactly like a live reply.
"""

from __future__ import annotations

import itertools
import secrets
from typing import Any, Protocol

from neocode_tui.events import FinishReason, StreamError, StreamEvent, Usage
from neocode_tui.providers.sse import SSEDecoder, SSEEvent


class Dialect(Protocol):
    done: bool
    """True once the stream reached its terminal event (the message's end or an error)."""

    def feed(self, event: SSEEvent, out: list[StreamEvent]) -> None:
        """Append the events ``event`` carries to ``out``."""

    def end(self, out: list[StreamEvent]) -> None:
        """The body ended: close what is open, or report a truncated stream."""


class CallIds:
    """Synthesised ids for tool calls a server sent without one.

    Replays and scripted models count from 1 under a fixed prefix, so they agree run after
    run; live providers pass ``live=True`` for a random tag in the prefix, so ids stay unique
    in a session that outlives one provider (a model switch, a resumed session).
    """

    def __init__(self, prefix: str = "call_neo_", *, live: bool = False) -> None:
        self._prefix = f"{prefix}{secrets.token_hex(3)}_" if live else prefix
        self._counter = itertools.count(1)

    def __call__(self) -> str:
        return f"{self._prefix}{next(self._counter)}"


class EventPump:
    """Bytes in, ``StreamEvent``s out, through one decoder and one dialect parser.

    Nothing after the terminal event is delivered: a stream has exactly one end.
    """

    __slots__ = ("_decoder", "dialect")

    def __init__(self, dialect: Dialect) -> None:
        self._decoder = SSEDecoder()
        self.dialect = dialect

    @property
    def done(self) -> bool:
        return self.dialect.done

    def feed(self, chunk: bytes) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        dialect = self.dialect
        for event in self._decoder.feed(chunk):
            if dialect.done:
                break
            dialect.feed(event, out)
        return out

    def close(self) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        for event in self._decoder.close():
            if self.dialect.done:
                break
            self.dialect.feed(event, out)
        if not self.dialect.done:
            self.dialect.end(out)
        return out


FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "eos": "stop",
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "tool_use": "tool_calls",
    "length": "length",
    "max_tokens": "length",
    "content_filter": "content_filter",
    "refusal": "content_filter",
}


def finish_reason(raw: str | None, has_calls: bool) -> FinishReason:
    """Our finish reason. A message that carries tool calls finished to call them, whatever
    the server called it (several send "stop" with tool calls)."""
    reason = FINISH_REASONS.get(raw or "", "other" if raw else "stop")
    return "tool_calls" if has_calls and reason == "stop" else reason


def merge_usage(old: Usage | None, new: Usage) -> Usage:
    return new if old is None else old.merged(new)


def truncated() -> StreamError:
    return StreamError.model_construct(
        kind="truncated",
        message="stream truncated: the connection closed before the model finished",
        retryable=True,
        status=None,
    )


def malformed(detail: str) -> StreamError:
    return StreamError.model_construct(
        kind="malformed",
        message=f"malformed chunk from the server: {detail}",
        retryable=True,
        status=None,
    )


_RETRYABLE_STREAM_ERRORS = {
    "overloaded_error": "server",
    "api_error": "server",
    "server_error": "server",
    "internal_server_error": "server",
    "service_unavailable": "server",
    "rate_limit_error": "rate_limit",
    "rate_limit_exceeded": "rate_limit",
}


def in_stream_error(payload: Any) -> StreamError:
    """An error object the server sent inside the stream (``{"error": ...}`` or Anthropic's
    ``error`` event). Overloads, server faults and rate limits are worth a retry."""
    if isinstance(payload, dict):
        message = str(payload.get("message") or payload.get("type") or payload)
        labels = (str(payload.get("type") or ""), str(payload.get("code") or ""))
    else:
        message, labels = str(payload), ()
    kind = next((_RETRYABLE_STREAM_ERRORS[label] for label in labels
                 if label in _RETRYABLE_STREAM_ERRORS), None)
    prefix = {"server": "the server failed mid-stream", "rate_limit": "rate limited mid-stream"}
    return StreamError.model_construct(
        kind=kind or "stream",
        message=f"{prefix.get(kind or '', 'the server reported an error')}: {message}",
        retryable=kind is not None,
        status=None,
    )
