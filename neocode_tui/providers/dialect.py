"""What the two wire dialects share: the parser protocol, the bytes-to-events pump, call ids,
finish reasons and in-stream error classification.

A dialect parser turns decoded SSE events into ``StreamEvent``s. The pump puts the SSE
decoder in front of it; the live HTTP provider, the scripted provider and ``neocode replay``
all feed bytes through the same pump, so a recording plays exactly like a live reply.
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
from typing import Any, Protocol

from neocode_tui.events import ErrorKind, FinishReason, StreamError, StreamEvent, Usage
from neocode_tui.providers.gathered import Events, Gathered
from neocode_tui.providers.sse import SSEDecoder, SSEEvent, SSEOverflow


class Dialect(Protocol):
    done: bool
    """True once the stream reached its terminal event (the message's end or an error)."""

    def feed(self, event: SSEEvent, out: Events) -> None:
        """Append the events ``event`` carries to ``out`` (text pieces through ``out.piece``)."""

    def end(self, out: Events) -> None:
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

    Nothing after the terminal event is delivered: a stream has exactly one end. ``gather``
    (the live provider, which joins what arrived together anyway): the text pieces of one
    read come out joined, never built one by one.
    """

    __slots__ = ("_decoder", "dialect", "events_seen", "_failed", "_events")

    def __init__(self, dialect: Dialect, *, max_event_bytes: int = 16 << 20, gather: bool = False) -> None:
        self._decoder = SSEDecoder(max_event_bytes=max_event_bytes)
        self._events: type[Events] = Gathered if gather else Events
        self.dialect = dialect
        self.events_seen = 0
        """SSE events decoded so far (comments and unfinished lines are not events)."""
        self._failed = False

    @property
    def done(self) -> bool:
        return self._failed or self.dialect.done

    @property
    def lines_seen(self) -> int:
        """Complete lines decoded so far: a server's sign of life (an unfinished line is not)."""
        return self._decoder.lines_seen

    def feed(self, chunk: bytes) -> list[StreamEvent]:
        if self.done:
            return []
        try:
            events = self._decoder.feed(chunk)
        except SSEOverflow as exc:
            return self._fail(exc)
        return self._deliver(events).done()

    def close(self) -> list[StreamEvent]:
        if self.done:
            return []
        cut_line = self._decoder.pending
        out = self._deliver(self._decoder.close())
        if not self.dialect.done:
            if self.events_seen == 0 and not cut_line:
                self._failed = True
                out.append(empty_response())
            else:
                self.dialect.end(out)
        return out.done()

    def _deliver(self, events: list[SSEEvent]) -> Events:
        out = self._events()
        dialect = self.dialect
        for event in events:
            if dialect.done:
                break
            self.events_seen += 1
            dialect.feed(event, out)
        return out

    def _fail(self, exc: SSEOverflow) -> list[StreamEvent]:
        self._failed = True
        return [StreamError.model_construct(
            kind="malformed", message=f"the server sent {exc}: stopped reading the reply",
            retryable=False, status=None)]


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


class Malformed(ValueError):
    """A chunk that parsed as JSON but is not the shape the dialect promises."""


def text_field(value: Any, name: str) -> str | None:
    """A string field of a chunk: absent/null is ``None``; any other type is malformed."""
    if value is None or isinstance(value, str):
        return value
    raise Malformed(f"{name} is {type(value).__name__}, not a string")


def token_count(value: Any, name: str) -> int | None:
    """A token count: absent/null is unknown (``None``); a count is a whole number >= 0."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Malformed(f"usage {name} is {value!r}, not a token count")
    return value


def mapping(value: Any, name: str) -> dict[str, Any]:
    """An object field: absent/null is empty; any other type is malformed."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    raise Malformed(f"{name} is {type(value).__name__}, not an object")


def parse_json(data: str) -> Any:
    """The JSON of one SSE event, or ``Malformed`` (numbers too long to parse included)."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        raise Malformed(f"not JSON: {data[:80]!r}") from None


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


def empty_response() -> StreamError:
    """HTTP 200 and not one event: what llama.cpp's server does when the prompt does not fit
    or it cannot serve the request's tool options. Worth one retry, not four."""
    return StreamError.model_construct(
        kind="context_overflow",
        message="the server returned an empty response: the prompt may exceed its context "
                "(try /compact), or it may not support this request's tool options "
                "(see NEOCODE_OPENAI_COMPAT)",
        retryable=True,
        status=None,
    )


_OVERFLOW = re.compile(
    r"context_length_exceeded|context.length|maximum context|context window|context size"
    r"|prompt is too long|input is too long|reduce the length", re.IGNORECASE)


def is_context_overflow(*texts: str) -> bool:
    """Whether a server's error words say the prompt does not fit the model's context
    (OpenAI, Anthropic, llama.cpp, vLLM, Ollama spellings)."""
    return any(_OVERFLOW.search(text) for text in texts if text)


def context_overflow(detail: str, status: int | None = None) -> StreamError:
    return StreamError.model_construct(
        kind="context_overflow",
        message="the conversation no longer fits the model's context: run /compact (or start "
                f"a new session) and try again. The server said: {detail}",
        retryable=False,
        status=status,
    )


_RETRYABLE_STREAM_ERRORS: dict[str, ErrorKind] = {
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
    labels: tuple[str, ...] = ()
    if isinstance(payload, dict):
        message = str(payload.get("message") or payload.get("type") or payload)
        labels = (str(payload.get("type") or ""), str(payload.get("code") or ""))
    else:
        message = str(payload)
    message = short_text(message)
    if is_context_overflow(message, *labels):
        return context_overflow(message)
    kind: ErrorKind | None = next(
        (_RETRYABLE_STREAM_ERRORS[label] for label in labels if label in _RETRYABLE_STREAM_ERRORS), None
    )
    prefix = {"server": "the server failed mid-stream", "rate_limit": "rate limited mid-stream"}
    return StreamError.model_construct(
        kind=kind or "stream",
        message=f"{prefix.get(kind or '', 'the server reported an error')}: {message}",
        retryable=kind is not None,
        status=None,
    )


def short_text(text: str, limit: int = 200) -> str:
    """One line of at most ``limit`` characters, cut at a word boundary with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,.;:") + "…"
