"""The offline model: scripted turns and replays of recorded streams.

It powers the default start without a key, demos, snapshot tests and ``neocode replay``.
A recorded turn goes through the same decoder and dialect parser as a live HTTP reply, so
what a replay shows is what the live model would have shown.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from neocode_tui.chat import ChatRequest
from neocode_tui.deferred import lazy
from neocode_tui.events import (
    FinishReason,
    MessageDone,
    ReasoningDelta,
    RefusalDelta,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from neocode_tui.providers.dialect import CallIds, Dialect, EventPump
from neocode_tui.vocabulary import OFFLINE_PROVIDER, DialectName

if TYPE_CHECKING:
    from neocode_tui.providers import sse
else:  # after the first frame, or on first use (neocode_tui/deferred.py)
    sse = lazy("neocode_tui.providers.sse")


@dataclass(frozen=True)
class SSEReplay:
    """Recorded SSE bytes, fed to the parser ``chunk_size`` bytes at a time (None: at once)."""

    data: bytes
    dialect: DialectName | Literal["auto"] = "auto"
    chunk_size: int | None = None


Turn = Sequence[StreamEvent] | SSEReplay
TurnSource = Iterable[Turn] | Callable[[ChatRequest], Turn]

_DELTAS = (TextDelta, ReasoningDelta, RefusalDelta, ToolCallDelta)


def detect_dialect(data: bytes) -> DialectName:
    """Anthropic events carry a ``type``; OpenAI chunks carry ``choices`` and no ``type``."""
    decoder = sse.SSEDecoder()
    for event in decoder.feed(data[:65536]) + decoder.close():
        if event.event in ("message_start", "content_block_start", "ping"):
            return "anthropic"
        try:
            payload = json.loads(event.data)
        except ValueError:
            continue
        if isinstance(payload, dict):
            return "anthropic" if "type" in payload and "choices" not in payload else "openai"
    return "openai"


def make_dialect(name: DialectName, ids: CallIds) -> Dialect:
    # The HTTP providers' modules load with the first reply, not at start-up.
    from neocode_tui.providers.anthropic import AnthropicDialect
    from neocode_tui.providers.openai import OpenAIDialect

    return AnthropicDialect(ids) if name == "anthropic" else OpenAIDialect(ids)


def replay_events(replay: SSEReplay, ids: CallIds | None = None) -> Iterator[StreamEvent]:
    """The events a live response with these bytes would have produced, read by read."""
    name = detect_dialect(replay.data) if replay.dialect == "auto" else replay.dialect
    pump = EventPump(make_dialect(name, ids or CallIds()))
    data = replay.data
    size = replay.chunk_size or max(1, len(data))
    for start in range(0, len(data), size):
        yield from pump.feed(data[start : start + size])
        if pump.done:
            return
    yield from pump.close()


def scripted_reply(
    text: str = "",
    tool_calls: Sequence[tuple[str, str]] = (),
    *,
    reasoning: str = "",
    delta: int = 6,
    usage: Usage | None = None,
    call_id_prefix: str = "call_scripted_",
) -> list[StreamEvent]:
    """One assistant message as events, text and arguments in ``delta``-character pieces:
    the quickest way to script a turn. ``tool_calls`` are ``(name, arguments_json)``."""

    def split(value: str) -> list[str]:
        return [value[i : i + delta] for i in range(0, len(value), delta)]

    events: list[StreamEvent] = [ReasoningDelta(text=part) for part in split(reasoning)]
    events += [TextDelta(text=part) for part in split(text)]
    for index, (name, arguments) in enumerate(tool_calls):
        events.append(ToolCallStart(index=index, id=f"{call_id_prefix}{index + 1}", name=name))
        events += [ToolCallDelta(index=index, arguments=part) for part in split(arguments)]
        events.append(ToolCallEnd(index=index))
    finish: FinishReason = "tool_calls" if tool_calls else "stop"
    events.append(MessageDone(finish_reason=finish, usage=usage))
    return events


class ScriptedProvider:
    """Plays ``turns`` one per request: a sequence, or a function of the request (a scripted
    model that answers what it is sent). ``rate`` paces deltas per second; without it the
    turn plays as fast as possible while still letting the event loop run."""

    name: str = OFFLINE_PROVIDER

    def __init__(self, turns: TurnSource, *, model: str = "scripted", rate: float | None = None) -> None:
        self.model = model
        self.rate = rate
        self.requests: list[ChatRequest] = []
        """Every request received, in order (what the model was sent)."""
        self._script = turns if callable(turns) else iter(turns)
        self._ids = CallIds()

    def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        self.requests.append(request)
        return self._play(self._next_turn(request))

    def _next_turn(self, request: ChatRequest) -> Turn | None:
        if callable(self._script):
            return self._script(request)
        return next(self._script, None)

    async def _play(self, turn: Turn | None) -> AsyncGenerator[StreamEvent, None]:
        if turn is None:
            yield StreamError(kind="stream", message="the scripted model has no more replies")
            return
        events = replay_events(turn, self._ids) if isinstance(turn, SSEReplay) else turn
        loop = asyncio.get_running_loop()
        start = loop.time()
        deltas = 0
        for count, event in enumerate(events):
            if self.rate and isinstance(event, _DELTAS):
                # Due times from the start, not a sleep per delta: sleeps overshoot, and at a
                # high rate those overshoots would add up to a much slower stream.
                deltas += 1
                due = start + deltas / self.rate
                if due > loop.time():
                    await asyncio.sleep(due - loop.time())
                elif deltas % 16 == 0:
                    await asyncio.sleep(0)
            elif count % 16 == 15:
                await asyncio.sleep(0)
            yield event

    async def aclose(self) -> None:
        """Nothing to release; here to honour the Provider protocol."""
