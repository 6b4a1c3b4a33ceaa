"""Scrubbing a message while it streams, so a key sent a few characters at a time is never
shown, printed or saved.

Each stream of text (the answer, the reasoning, a refusal, each tool call's arguments) is
scrubbed on its own. What is passed on is the text so far minus its tail that also occurs
in a key (``Redactor.held``): that tail waits for the next piece, which shows whether it
grows into a run (scrubbed) or not (passed on). Ordinary text waits for nothing, or for a
character or two, and a piece is searched for runs only where it holds one of the
redactor's seeds, so a delta costs a few set lookups.

A run never straddles what was passed on and what was held back, so scrubbing the part
passed on gives what scrubbing the whole text would. Only when a stream of text must be let
out early (another block starts on screen, or the message ends) does a held tail go out
as it is: it is shorter than a run, and it stays as context, so whatever follows it that
would make a run is scrubbed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from neocode_tui.events import (
    MessageDone,
    ReasoningDelta,
    RefusalDelta,
    StreamError,
    StreamEvent,
    StreamRetry,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from neocode_tui.redact import REDACTED, Redactor

TextKind = type[TextDelta] | type[ReasoningDelta] | type[RefusalDelta]
"""The kinds of text the screen shows as blocks of their own, one open at a time."""
_new, _set = object.__new__, object.__setattr__


class _Text:
    """One stream of text: ``tail`` is still in play; its first ``shown`` characters are
    already out (let out early), and ``hiding``: what went out ends in a redaction."""

    __slots__ = ("hiding", "shown", "tail")

    def __init__(self) -> None:
        self.tail = ""
        self.shown = 0
        self.hiding = False

    def feed(self, redactor: Redactor, piece: str, let_out: bool = False) -> str:
        """What of the text may go out now that ``piece`` came (all of it if ``let_out``)."""
        text = self.tail + piece
        cut = len(text) - redactor.held(text)
        runs = redactor.runs(text)
        if not runs and not self.shown and not let_out:  # nearly every delta
            self.tail = text[cut:]
            if cut:
                self.hiding = False
            return text[:cut]
        for start, end in runs:
            if start < cut < end:
                cut = start  # a run still growing goes out whole, later
                break
        end = len(text) if let_out else max(cut, self.shown)
        out = self._render(text, end, runs)
        self.tail, self.shown = text[cut:], end - cut
        return out

    def _render(self, text: str, end: int, runs: list[tuple[int, int]]) -> str:
        """``text`` from ``shown`` to ``end`` with its runs replaced; a run that began in
        what is already out and ended there in a redaction is not marked twice."""
        at = self.shown
        if not runs:
            if at < end:
                self.hiding = False
            return text[at:end]
        parts: list[str] = []
        hiding = self.hiding
        for start, stop in runs:
            if stop <= at:
                continue
            if start >= end:
                break
            if start > at:
                parts.append(text[at:start])
                hiding = False
            if not hiding:
                parts.append(REDACTED)
            hiding, at = True, min(stop, end)
        if at < end:
            parts.append(text[at:end])
            hiding = False
        self.hiding = hiding
        return "".join(parts)


class StreamRedactor:
    """Scrubs one message's events in order; ``message`` scrubs an error's words."""

    def __init__(self, redactor: Redactor, message: Callable[[str], str]) -> None:
        self._redactor = redactor
        self._message = message
        self._texts: dict[TextKind, _Text] = {}
        self._calls: dict[int, _Text] = {}
        self.open: TextKind | None = None
        """The kind of text streamed last: anything else lets it out first."""
        self.open_text = _Text()
        """Its stream of text, which the next delta of that kind continues."""

    def feed(self, event: StreamEvent) -> list[StreamEvent]:
        """The events to pass on for ``event``: itself scrubbed, after what it lets out."""
        kind = event.__class__
        if kind is TextDelta or kind is ReasoningDelta or kind is RefusalDelta:
            return self._block(event)  # type: ignore[arg-type]
        out = self._let_out_open()
        if isinstance(event, ToolCallDelta):
            text = self._calls.setdefault(event.index, _Text()).feed(self._redactor, event.arguments)
            if text:
                out.append(event if text == event.arguments else _like(event, arguments=text))
        elif isinstance(event, ToolCallStart):
            scrubbed = self._redactor(event.id), self._redactor(event.name)
            out.append(event if scrubbed == (event.id, event.name) else ToolCallStart.model_construct(
                index=event.index, id=scrubbed[0], name=scrubbed[1]))
        elif isinstance(event, ToolCallEnd):
            out += self._let_out_call(event.index)
            out.append(event)
        elif isinstance(event, MessageDone):
            out += self.finish()
            out.append(event)
        elif isinstance(event, StreamError):
            out += self.finish()
            out.append(event.model_copy(update={"message": self._message(event.message)}))
        elif isinstance(event, StreamRetry):
            self._texts.clear()  # the attempt is discarded, its held tails with it
            self._calls.clear()
            self.open = None
            out.append(event.model_copy(update={"reason": self._message(event.reason)}))
        else:
            out.append(event)
        return out

    def finish(self) -> list[StreamEvent]:
        """Everything still held, let out: the message is over."""
        out = self._let_out_open()
        for index in list(self._calls):
            out += self._let_out_call(index)
        self._texts.clear()
        return out

    def _block(self, event: TextDelta | ReasoningDelta | RefusalDelta) -> list[StreamEvent]:
        kind = event.__class__
        out = self._let_out_open() if self.open is not kind else []
        self.open = kind
        channel = self._texts.get(kind)
        if channel is None:
            channel = self._texts[kind] = _Text()
        self.open_text = channel
        text = channel.feed(self._redactor, event.text)
        if text:
            out.append(event if text == event.text else _like(event, text=text))
        return out

    def _let_out_open(self) -> list[StreamEvent]:
        kind, self.open = self.open, None
        if kind is None:
            return []
        text = self.open_text.feed(self._redactor, "", let_out=True)
        return [kind.model_construct(text=text)] if text else []

    def _let_out_call(self, index: int) -> list[StreamEvent]:
        channel = self._calls.pop(index, None)
        text = channel.feed(self._redactor, "", let_out=True) if channel else ""
        return [ToolCallDelta.model_construct(index=index, arguments=text)] if text else []


def _like(event: StreamEvent, **changes: str) -> StreamEvent:
    """``event`` with other values, built the way ``model_construct`` builds one but
    without its per-field work: a held tail changes nearly every delta, so this runs for
    most of them."""
    clone = _new(event.__class__)
    _set(clone, "__dict__", {**event.__dict__, **changes})
    _set(clone, "__pydantic_fields_set__", event.__pydantic_fields_set__)
    _set(clone, "__pydantic_extra__", None)
    _set(clone, "__pydantic_private__", None)
    return clone


async def scrub_stream(
    events: AsyncIterator[StreamEvent], redactor: Redactor, message: Callable[[str], str]
) -> AsyncIterator[StreamEvent]:
    """``events`` scrubbed (``StreamRedactor``); closing this closes them."""
    scrubber = StreamRedactor(redactor, message)
    try:
        async for event in events:
            if event.__class__ is scrubber.open:  # the open block goes on: most events
                text = scrubber.open_text.feed(redactor, event.text)
                if text:
                    yield event if text == event.text else _like(event, text=text)
                continue
            for scrubbed in scrubber.feed(event):
                yield scrubbed
        for scrubbed in scrubber.finish():
            yield scrubbed
    finally:
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()
