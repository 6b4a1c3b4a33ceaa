"""Drains one assistant message's event channel into a ``CollectedTurn``.

One pass serves both faces of a stream: every event is forwarded to an optional callback
(the screen) while the turn is accumulated (the loop). Every way out (done, error, the
channel closing, cancellation) goes through the single ``finish`` at the bottom, so the
text is materialised once and the tool calls are emitted once, in start order.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from neocode_tui.chat import ThinkingBlock
from neocode_tui.events import (
    ErrorInfo,
    FinishReason,
    MessageDone,
    ReasoningDelta,
    ReasoningSigned,
    RefusalDelta,
    StreamError,
    StreamEvent,
    StreamRetry,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    UsageEvent,
)

EventCallback = Callable[[StreamEvent], None]


class CollectedToolCall(BaseModel):
    model_config = ConfigDict(defer_build=True)

    index: int
    id: str
    name: str
    arguments: str
    """The raw argument text, fragments concatenated verbatim."""
    arguments_json: Any = None
    """The parsed arguments, or None when ``parse_error`` is set."""
    parse_error: str | None = None
    complete: bool = True
    """False when the message ended (error, cancel, truncation) before the call's end."""


class CollectedTurn(BaseModel):
    model_config = ConfigDict(defer_build=True)

    text: str = ""
    reasoning: str = ""
    thinking: list[ThinkingBlock] = []
    """The signed blocks ``reasoning`` came in (Anthropic), to send back as they were."""
    refusal: str = ""
    tool_calls: list[CollectedToolCall] = []
    finish_reason: FinishReason | None = None
    usage: Usage | None = None
    dropped_tool_calls: int = 0
    error: ErrorInfo | None = None
    retries: int = 0
    model: str | None = None
    """The fallback model that answered, when the one asked could not (a ``retry`` named it)."""
    cancelled: bool = False
    thought_for: float | None = None
    """Seconds from the first piece of thinking to what came after it (None: no clock, or
    no thinking)."""

    @property
    def ok(self) -> bool:
        """True when the message ended normally: only then may its tool calls run."""
        return self.error is None and not self.cancelled and self.finish_reason is not None

    def to_replay_json(self) -> dict[str, Any]:
        """The ``neocode replay --json`` shape."""
        return {
            "text": self.text,
            "reasoning": self.reasoning,
            "refusal": self.refusal,
            "tool_calls": [
                {
                    "index": call.index,
                    "id": call.id,
                    "name": call.name,
                    "arguments": call.arguments,
                    "arguments_json": call.arguments_json,
                }
                for call in self.tool_calls
            ],
            "finish_reason": self.finish_reason,
            "usage": self.usage.model_dump() if self.usage else None,
            "dropped_tool_calls": self.dropped_tool_calls,
            "error": self.error.model_dump() if self.error else None,
        }


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    fragments: list[str] = field(default_factory=list)
    started: bool = False
    ended: bool = False


class _Accumulator:
    """The state of one attempt; a ``retry`` event replaces it with a fresh one."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.thinking: list[ThinkingBlock] = []
        self.signed_up_to = 0
        """How many reasoning deltas the signed blocks so far cover."""
        self.refusal: list[str] = []
        self.calls: dict[int, _PendingCall] = {}
        self.start_order: list[int] = []
        self.usage: Usage | None = None
        self.finish_reason: FinishReason | None = None
        self.thought: list[float] = []
        """When the thinking began and, once something else came, when it ended."""

    def add(self, event: StreamEvent) -> bool:
        """Take in a piece of the answer; False for an event that is not one (the end, an
        error, a retry: the collector's to handle)."""
        if isinstance(event, TextDelta):
            self.text.append(event.text)
        elif isinstance(event, ToolCallDelta):
            self.call(event.index).fragments.append(event.arguments)
        elif isinstance(event, ToolCallStart):
            pending = self.call(event.index)
            # A backend may re-send id or name for an index: the first non-empty wins.
            pending.id = pending.id or event.id
            pending.name = pending.name or event.name
            if not pending.started:
                pending.started = True
                self.start_order.append(event.index)
        elif isinstance(event, ToolCallEnd):
            self.call(event.index).ended = True
        elif isinstance(event, ReasoningDelta):
            self.reasoning.append(event.text)
        elif isinstance(event, ReasoningSigned):
            self.sign(event)
        elif isinstance(event, RefusalDelta):
            self.refusal.append(event.text)
        elif isinstance(event, UsageEvent):
            self.merge_usage(event.usage)
        else:
            return False
        return True

    def call(self, index: int) -> _PendingCall:
        pending = self.calls.get(index)
        if pending is None:
            # A delta may come before its start (Ollama, minimax): keep it at its index.
            pending = self.calls[index] = _PendingCall()
        return pending

    def sign(self, event: ReasoningSigned) -> None:
        text = "".join(self.reasoning[self.signed_up_to:])
        self.signed_up_to = len(self.reasoning)
        self.thinking.append(ThinkingBlock(text=text, signature=event.signature,
                                           redacted=event.redacted))

    def merge_usage(self, usage: Usage | None) -> None:
        if usage is not None:
            self.usage = usage if self.usage is None else self.usage.merged(usage)


def _materialise_calls(acc: _Accumulator, complete: bool) -> tuple[list[CollectedToolCall], int]:
    started = set(acc.start_order)
    ordered = acc.start_order + sorted(i for i in acc.calls if i not in started)
    calls: list[CollectedToolCall] = []
    dropped = 0
    for index in ordered:
        pending = acc.calls[index]
        if not pending.name:
            dropped += 1  # never dispatch a call without a tool name
            continue
        arguments = "".join(pending.fragments)
        parsed: Any = None
        error: str | None = None
        try:
            # strict=False: raw newlines and tabs inside strings, which models do write.
            parsed = json.loads(arguments, strict=False) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            # json's own words may end in "at" ("Invalid control character at").
            error = (f"arguments are not valid JSON: {exc.msg.removesuffix(' at')} "
                     f"at character {exc.pos}")
        except RecursionError:
            error = "arguments are not valid JSON: nested too deeply"
        calls.append(
            CollectedToolCall(
                index=index,
                id=pending.id,
                name=pending.name,
                arguments=arguments,
                arguments_json=parsed,
                parse_error=error,
                complete=complete or pending.ended,
            )
        )
    return calls, dropped


class Collector:
    """Drains one message; what arrived so far stays readable if the drain is cancelled.

    Cancelling the awaiting task closes the source (releasing the provider's connection, so
    nothing is left blocked on it) and lets ``CancelledError`` go on, as asyncio expects;
    the caller reads the partial turn the user already saw from ``partial()``.
    """

    def __init__(self, on_event: EventCallback | None = None, clock: Callable[[], float] | None = None) -> None:
        """``clock``: to time the thinking by (a resumed session shows how long it took)."""
        self.on_event = on_event
        self._clock = clock
        self._acc = _Accumulator()
        self._retries = 0
        self._model: str | None = None

    def _time_thought(self, event: StreamEvent) -> None:
        thought = self._acc.thought
        if self._clock is None or len(thought) == 2:
            return
        thinking = isinstance(event, (ReasoningDelta, ReasoningSigned))
        if thinking != bool(thought):
            thought.append(self._clock())

    async def collect(self, events: AsyncIterator[StreamEvent]) -> CollectedTurn:
        """Drain ``events`` into a turn, forwarding each event to ``on_event`` as it arrives."""
        on_event = self.on_event
        error: StreamError | None = None
        try:
            async for event in events:
                if on_event is not None:
                    on_event(event)
                self._time_thought(event)
                if self._acc.add(event):
                    continue
                if isinstance(event, MessageDone):
                    self._acc.merge_usage(event.usage)
                    self._acc.finish_reason = event.finish_reason
                    break
                if isinstance(event, StreamError):
                    error = event
                    break
                if isinstance(event, StreamRetry):
                    self._acc = _Accumulator()  # the broken attempt is discarded whole
                    self._retries += 1
                    self._model = event.model or self._model
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()
        return _finish(self._acc, error, False, self._retries, self._model)

    def partial(self) -> CollectedTurn:
        """The turn as far as it arrived, marked cancelled: for a drain that was cancelled."""
        return _finish(self._acc, None, True, self._retries, self._model)


async def collect(
    events: AsyncIterator[StreamEvent], on_event: EventCallback | None = None
) -> CollectedTurn:
    """Drain ``events`` into a turn (see ``Collector``); a cancel propagates."""
    return await Collector(on_event).collect(events)


def _finish(
    acc: _Accumulator, error: StreamError | None, cancelled: bool, retries: int,
    model: str | None,
) -> CollectedTurn:
    """The single exit: everything accumulated is materialised here, exactly once."""
    ended_normally = acc.finish_reason is not None and error is None and not cancelled
    calls, dropped = _materialise_calls(acc, complete=ended_normally)
    if cancelled:
        info: ErrorInfo | None = ErrorInfo(kind="cancelled", message="interrupted by the user")
    elif error is not None:
        info = ErrorInfo(kind=error.kind, message=error.message)
    elif acc.finish_reason is None:
        info = ErrorInfo(kind="truncated", message="the stream ended before the model finished")
    else:
        info = None
    return CollectedTurn(
        text="".join(acc.text),
        reasoning="".join(acc.reasoning),
        thinking=acc.thinking,
        refusal="".join(acc.refusal),
        tool_calls=calls,
        finish_reason=acc.finish_reason if ended_normally else None,
        usage=acc.usage,
        dropped_tool_calls=dropped,
        error=info,
        retries=retries,
        model=model,
        cancelled=cancelled,
        thought_for=acc.thought[1] - acc.thought[0] if len(acc.thought) == 2 else None,
    )
