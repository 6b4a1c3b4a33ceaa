"""The events one read of a reply carries, as the dialects add them.

A fast server sends a few characters per SSE event; building a frozen pydantic event for each
one cost as much as parsing its JSON, only for the live provider to join the pieces again a
step later (``events.joined``). So the dialects hand their text, reasoning and refusal pieces
to ``piece``: ``Events`` makes each one an event (a replay, the tests of the decoders: one
event per piece, however the bytes were read), ``Gathered`` makes a run of pieces of one
stream a single delta, closed when anything else is added or the read ends, so the order of
events is kept and the stream is the same, in fewer objects.
"""

from __future__ import annotations

from neocode_tui.events import ReasoningDelta, RefusalDelta, StreamEvent, TextDelta

PieceKind = type[TextDelta] | type[ReasoningDelta] | type[RefusalDelta]


class Events(list[StreamEvent]):
    """The events of one read, each piece of text its own delta."""

    __slots__ = ()

    def piece(self, kind: PieceKind, text: str) -> None:
        """Add ``text`` to the stream of ``kind`` (the answer, the thinking, a refusal)."""
        super().append(kind.model_construct(text=text))

    def done(self) -> list[StreamEvent]:
        """The events, all of them."""
        return self


class Gathered(Events):
    """The events of one read, each run of adjacent pieces of one stream a single delta."""

    __slots__ = ("_kind", "_pieces")

    def __init__(self) -> None:
        super().__init__()
        self._kind: PieceKind = TextDelta
        self._pieces: list[str] = []

    def piece(self, kind: PieceKind, text: str) -> None:
        if kind is not self._kind:
            self._close()
            self._kind = kind
        self._pieces.append(text)

    def append(self, event: StreamEvent) -> None:
        self._close()
        super().append(event)

    def done(self) -> list[StreamEvent]:
        self._close()
        return self

    def _close(self) -> None:
        if self._pieces:
            super().append(self._kind.model_construct(text="".join(self._pieces)))
            self._pieces = []
