"""The stream vocabulary: every event a provider can put on the channel.

Providers translate their wire format into these and nothing else; the screen and the
collector consume only these. Every tool-call event carries ``index``, the call's position
in this assistant message, so deltas always find their call (a start
without an index followed by a delta without an id cannot be expressed here).

A delta is any piece of its stream, however the wire cut it: a live provider hands on what
arrived together as one delta per stream (``joined``), so consumers pay per read, not per
token, and never wait for a delta that has arrived.

Providers build events with ``model_construct`` on hot paths (no validation per delta);
``StreamEventAdapter`` validates events read back from JSON.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

FinishReason = Literal["stop", "tool_calls", "length", "content_filter", "other"]
ErrorKind = Literal[
    "auth",  # 401/403: the key is missing or wrong
    "bad_request",  # 400/404/422: the request or model name is wrong
    "rate_limit",  # 429
    "server",  # 5xx, 529, overloaded
    "connection",  # refused, reset, DNS
    "timeout",  # first byte or idle timeout
    "truncated",  # the body ended before the stream said it was done
    "malformed",  # a chunk that is not the JSON the dialect promises
    "stream",  # an error object sent inside the stream
    "context_overflow",  # the prompt no longer fits the model's context: /compact helps
    "cancelled",  # the user stopped the turn
    "budget",  # the next request would pass the session's max_budget_usd
]


class ErrorInfo(BaseModel):
    """The one shape of a failure wherever it is reported: a turn, a run, a front end."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    kind: ErrorKind
    message: str
    """Plain words, already redacted."""


class _Event(BaseModel):
    # Validators are built on first use, not at import: the app draws its first frame sooner.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Usage(BaseModel):
    """Token counts. ``None`` is unknown (the server did not report it) and stays apart from
    a counted ``0``; providers set ``None`` explicitly, ``Usage()`` is an empty tally of
    zeros. ``cached_input_tokens`` is part of ``input_tokens`` and ``reasoning_tokens`` part
    of ``output_tokens``, never added on top."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    input_tokens: int | None = 0
    output_tokens: int | None = 0
    cached_input_tokens: int | None = 0
    cache_creation_input_tokens: int | None = 0
    reasoning_tokens: int | None = 0

    @classmethod
    def unknown(cls) -> Usage:
        """Nothing reported yet: a session's tally before any server said a number."""
        return cls.model_construct(**dict.fromkeys(cls.model_fields))

    def merged(self, newer: Usage) -> Usage:
        """Field by field, the newer known non-zero value wins (a known zero beats unknown);
        reports are snapshots, never summed."""
        values = {}
        for name in Usage.model_fields:
            old, new = getattr(self, name), getattr(newer, name)
            values[name] = old if new is None or (new == 0 and old) else new
        return Usage.model_construct(**values)

    def __add__(self, other: Usage) -> Usage:
        """Sum of two turns' usage (for session totals; a turn's snapshots use ``merged``).
        Unknown plus unknown stays unknown; unknown plus a count is that count."""
        values: dict[str, int | None] = {}
        for name in Usage.model_fields:
            left, right = getattr(self, name), getattr(other, name)
            values[name] = None if left is None and right is None else (left or 0) + (right or 0)
        return Usage.model_construct(None, **values)


class TextDelta(_Event):
    type: Literal["text_delta"] = "text_delta"
    text: str


class ReasoningDelta(_Event):
    """Model "thinking": shown live, never folded into the answer text."""

    type: Literal["reasoning_delta"] = "reasoning_delta"
    text: str


class ReasoningSigned(_Event):
    """The thinking block streamed since the last one ends here, with the signature the
    server will check when it is sent back (``redacted``: an encrypted block, no text)."""

    type: Literal["reasoning_signed"] = "reasoning_signed"
    signature: str = ""
    redacted: str = ""


class RefusalDelta(_Event):
    """OpenAI's ``delta.refusal``: the model declined; kept apart from the answer text."""

    type: Literal["refusal_delta"] = "refusal_delta"
    text: str


class ToolCallStart(_Event):
    type: Literal["tool_call_start"] = "tool_call_start"
    index: int
    id: str
    name: str


class ToolCallDelta(_Event):
    """A raw fragment of the call's JSON arguments; fragments concatenate verbatim."""

    type: Literal["tool_call_delta"] = "tool_call_delta"
    index: int
    arguments: str


class ToolCallEnd(_Event):
    type: Literal["tool_call_end"] = "tool_call_end"
    index: int


class UsageEvent(_Event):
    type: Literal["usage"] = "usage"
    usage: Usage


class MessageDone(_Event):
    """The normal end of an assistant message."""

    type: Literal["message_done"] = "message_done"
    finish_reason: FinishReason
    usage: Usage | None = None


class StreamError(_Event):
    """The abnormal end of a message. ``message`` is plain words, already redacted."""

    type: Literal["error"] = "error"
    kind: ErrorKind
    message: str
    retryable: bool = False
    status: int | None = None


class StreamRetry(_Event):
    """The attempt so far is discarded (screen and collector) and the request is sent again.

    Front ends show one status line that each retry replaces (``status_line``), not one
    line per retry; the full error is shown once, if the last attempt fails too.
    """

    type: Literal["retry"] = "retry"
    attempt: int  # the attempt about to start, 2..max_attempts
    max_attempts: int
    delay: float  # seconds waited before it
    reason: str  # plain words, one short line: why the previous attempt failed
    kind: ErrorKind = "server"
    discarded: bool = False
    """True when the failed attempt had already streamed part of an answer (text, reasoning
    or tool calls) that is now thrown away; False when nothing was shown."""

    model: str | None = None
    """The model the request goes to from now on, when it is another (a fallback model):
    what follows is that model's answer, counted at its price."""

    @property
    def waits_for_reset(self) -> bool:
        """A rate limit's told wait, long enough to count down rather than just say."""
        return self.kind == "rate_limit" and self.delay >= LONG_WAIT

    def status_line(self, left: float | None = None) -> str:
        """"retrying 2/4 in 1.5 s: rate limited", or for a long rate-limit wait "rate
        limited: waiting 4:32 for the limit to reset (retry 2/4)"; ``left``: seconds still to
        wait, for a countdown (the whole delay if not given)."""
        lost = " (partial answer discarded)" if self.discarded else ""
        if self.model is not None:
            return f"{self.reason}{lost}"
        if self.waits_for_reset:
            wait = clock_time(self.delay if left is None else left)
            return (f"rate limited: waiting {wait} for the limit to reset "
                    f"(retry {self.attempt}/{self.max_attempts}){lost}")
        return (f"retrying {self.attempt}/{self.max_attempts} in {self.delay:.1f} s: "
                f"{self.reason}{lost}")


LONG_WAIT = 10.0
"""Seconds of a rate limit's wait from which it is counted down."""


def clock_time(seconds: float) -> str:
    """"4:05", "1:02:03": a wait as a clock shows it, rounded up to the second."""
    whole = max(0, int(-(-seconds // 1)))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class RateLimitWindow(BaseModel):
    """One limit the server counts the key against (requests or tokens a minute, a plan's
    five hours): how much of it is left and when it starts afresh. ``None``: not said."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str
    """``requests``, ``tokens``, ``input_tokens``, ``output_tokens``, ``five_hour``, ``seven_day``."""
    limit: int | None = None
    remaining: int | None = None
    used: float | None = None
    """The share used, 0 to 1, when the server says it as a share rather than counts."""
    resets_at: float | None = None
    """Unix time, in seconds, when the window resets."""

    @property
    def left(self) -> float | None:
        """The share still left, 0 to 1."""
        if self.used is not None:
            return max(0.0, 1.0 - self.used)
        if self.limit and self.remaining is not None:
            return max(0.0, min(1.0, self.remaining / self.limit))
        return None


class RateLimits(_Event):
    """What a reply's headers said of the key's rate limits (every attempt's reply, a 429
    too): the headroom the status bar, ``/cost`` and a status-line script read."""

    type: Literal["rate_limits"] = "rate_limits"
    windows: tuple[RateLimitWindow, ...]


StreamEvent = Annotated[
    TextDelta
    | ReasoningDelta
    | ReasoningSigned
    | RefusalDelta
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | UsageEvent
    | MessageDone
    | StreamError
    | StreamRetry
    | RateLimits,
    Field(discriminator="type"),
]

def joined(events: list[StreamEvent]) -> list[StreamEvent]:
    """``events`` with each run of adjacent deltas of one stream (the text, the reasoning,
    the refusal, one call's arguments) joined into one delta: the same stream in fewer
    events, for what arrived together. The order of everything else is kept."""
    if len(events) < 2:
        return events
    out: list[StreamEvent] = []
    run: list[str] = []
    for event in events:
        piece = _continues(out[-1], event) if out else None
        if piece is not None:
            run.append(piece)
            continue
        _close_run(out, run)
        out.append(event)
    _close_run(out, run)
    return out


def _continues(last: StreamEvent, event: StreamEvent) -> str | None:
    """The piece ``event`` adds to the stream ``last`` belongs to, or None if another starts."""
    if last.__class__ is not event.__class__:
        return None
    if isinstance(event, TextDelta | ReasoningDelta | RefusalDelta):
        return event.text
    if isinstance(event, ToolCallDelta) and isinstance(last, ToolCallDelta) and last.index == event.index:
        return event.arguments
    return None


def _close_run(out: list[StreamEvent], run: list[str]) -> None:
    """Fold the pieces gathered after ``out[-1]`` into it."""
    if not run:
        return
    first = out[-1]
    if isinstance(first, ToolCallDelta):
        out[-1] = ToolCallDelta.model_construct(index=first.index, arguments=first.arguments + "".join(run))
    elif isinstance(first, TextDelta | ReasoningDelta | RefusalDelta):
        out[-1] = first.__class__.model_construct(text=first.text + "".join(run))
    run.clear()


StreamEventAdapter: TypeAdapter[StreamEvent] = TypeAdapter(StreamEvent, config=ConfigDict(defer_build=True))
