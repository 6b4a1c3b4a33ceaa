"""One view of a tool call for every front end: loop events in, per-call updates out.

A call's story is spread over many events: the model's start, argument fragments and end
(joined by ``index``, a delta may even come before its start), a retry that takes the
attempt back, the loop's approval, start, output and result (joined by ``call_id``), and
the end of the turn or run that leaves a call unfinished. ``CallTracker`` joins them once
and says what happened to which call, in order, as ``CallUpdate``s (the model is Codex's
begin/delta/end per call id); ``replayed`` tells a stored transcript the same way. The app's
conversation and the ACP translator only map these to panels and ``session/update``s.

Stdlib only, and dispatched on each event's ``type`` tag: the app's view imports this
before pydantic has loaded (its first frame does not wait for it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from neocode_tui.partial_json import GrowingText, PartialJSON

if TYPE_CHECKING:
    from neocode_tui.agent.loop_events import FileChange, LoopEvent, ToolFinished
    from neocode_tui.chat import Image, Message, PrintedOutput
    from neocode_tui.events import StreamEvent

CallStatus = Literal[
    "streaming", "ready", "approval", "running", "ok", "error", "denied", "interrupted",
    "skipped", "incomplete",
]
"""``streaming``: the model is writing the arguments; ``ready``: it has finished them;
``incomplete``: its message ended first; the rest say how the tool's turn went."""
FINAL: frozenset[CallStatus] = frozenset(
    {"ok", "error", "denied", "interrupted", "skipped", "incomplete"})
SAVED: tuple[CallStatus, ...] = ("ok", "error", "denied", "interrupted", "skipped")
"""The statuses a session file keeps for a result: ``loop_events.ToolStatus``, spelled out
here since importing it would load pydantic."""
PATH_ARGUMENTS = frozenset({"path"})
"""Arguments that name a file: ``settled`` leaves them out until they are complete."""


class CallArguments:
    """A call's arguments as they grow: the raw text, and its fields parsed on demand.

    Parsing waits until someone reads ``parsed`` (most panels of a resumed session are
    never drawn), then takes each fragment once.
    """

    __slots__ = ("raw", "_parsed", "_unread")

    def __init__(self) -> None:
        self.raw = GrowingText()
        self._parsed = PartialJSON()
        self._unread: list[str] = []

    def feed(self, fragment: str) -> None:
        self.raw.append(fragment)
        self._unread.append(fragment)

    @property
    def parsed(self) -> PartialJSON:
        """The top-level fields as far as they arrived."""
        if self._unread:
            for fragment in self._unread:
                self._parsed.feed(fragment)
            self._unread.clear()
        return self._parsed

    @property
    def fields_parsed(self) -> int:
        """How many fields are parsed so far, parsing nothing more (for an estimate)."""
        return len(self._parsed.fields)

    def values(self) -> dict[str, Any]:
        """Every field so far, decoded (a string still streaming is its text so far)."""
        return {key: value.value() for key, value in self.parsed.fields.items()}

    def settled(self) -> dict[str, Any]:
        """The fields without a path still streaming: ``ws/no`` on the way to
        ``ws/notes.txt`` names no file, and an editor opens every location it is sent."""
        return {key: value.value() for key, value in self.parsed.fields.items()
                if value.complete or key not in PATH_ARGUMENTS}


@dataclass(eq=False, slots=True)
class Call:
    """One tool call, as far as it is known; shared by every update about it (compared by
    identity, so a front end can key its own state on it)."""

    turn: int
    """0 for a call of a stored transcript."""
    index: int
    call_id: str = ""
    name: str = ""
    arguments: CallArguments = field(default_factory=CallArguments)
    status: CallStatus = "streaming"

    @property
    def finished(self) -> bool:
        return self.status in FINAL


@dataclass(frozen=True, slots=True)
class CallBegin:
    """The call is seen for the first time (its name or id may still be unknown)."""

    call: Call


@dataclass(frozen=True, slots=True)
class CallIdentified:
    """The name or the id of a call already begun arrived."""

    call: Call


@dataclass(frozen=True, slots=True)
class CallArgumentsDelta:
    """``fragment`` was added; ``call.arguments`` holds all of them so far."""

    call: Call
    fragment: str


@dataclass(frozen=True, slots=True)
class CallReady:
    """The model finished writing the call (its arguments are whole)."""

    call: Call


@dataclass(frozen=True, slots=True)
class CallAwaitingApproval:
    call: Call


@dataclass(frozen=True, slots=True)
class CallRunning:
    """The tool started, with ``arguments`` as the loop parsed them."""

    call: Call
    arguments: Any


@dataclass(frozen=True, slots=True)
class CallOutput:
    """What the running tool printed (only before the call has ended)."""

    call: Call
    text: str


@dataclass(frozen=True, slots=True)
class CallEnd:
    """The call's last word. ``result`` None: no result was reported (the message ended
    before the call did, or the run ended before the call ran)."""

    call: Call
    status: CallStatus
    result: str | None = None
    diff: str | None = None
    change: FileChange | None = None
    duration: float | None = None
    output: PrintedOutput | None = None
    """What a command stopped part way had printed (a saved session's; live, the output
    updates carried it)."""
    job: str = ""
    """The background command the call went on as (its id), if it did."""
    images: tuple[Image, ...] = ()
    """What the result carries besides its text (an MCP tool's picture, an image read)."""


@dataclass(frozen=True, slots=True)
class CallDiscarded:
    """A retry took back the attempt this call was streamed in: it never runs."""

    call: Call


CallUpdate = (CallBegin | CallIdentified | CallArgumentsDelta | CallReady | CallAwaitingApproval
              | CallRunning | CallOutput | CallEnd | CallDiscarded)


class CallTracker:
    """Loop events in, per-call updates out: ``feed`` each event in the order it came."""

    def __init__(self) -> None:
        self._turns: dict[int, dict[int, Call]] = {}
        """Each turn's calls of its current attempt, by index."""
        self._by_id: dict[str, Call] = {}
        """The latest call under each id (models reuse ids such as ``call_1`` across turns)."""

    def get(self, turn: int, index: int) -> Call | None:
        return self._turns.get(turn, {}).get(index)

    def by_id(self, call_id: str) -> Call | None:
        return self._by_id.get(call_id) if call_id else None

    def feed(self, event: LoopEvent) -> list[CallUpdate]:
        """What ``event`` did to which calls (an empty list for most events)."""
        if event.type == "stream":
            return self._stream(event.turn, event.event)
        if event.type == "tool_started":
            call, out = self.locate(event.turn, event.index, event.call_id, event.name)
            if not call.arguments.raw.length and event.arguments is not None:
                call.arguments.feed(json.dumps(event.arguments))
            call.status = "running"
            out.append(CallRunning(call, event.arguments))
            return out
        if event.type == "tool_output_delta":
            call, out = self.locate(event.turn, event.index, event.call_id)
            if not call.finished:  # the result replaces the live output
                out.append(CallOutput(call, event.text))
            return out
        if event.type == "approval_requested":
            call, out = self.locate(event.turn, event.index, event.call_id, event.name)
            call.status = "approval"
            out.append(CallAwaitingApproval(call))
            return out
        if event.type == "tool_finished":
            return self._finished(event)
        if event.type == "turn_finished":
            return self._unfinished(event.turn, "incomplete" if event.error else "ready")
        if event.type == "run_finished":
            return self._unfinished(event.turn, "interrupted" if event.reason == "cancelled" else "skipped")
        return []

    def locate(self, turn: int, index: int, call_id: str, name: str = "") -> tuple[Call, list[CallUpdate]]:
        """The call the loop speaks of: by its place in the turn unless the id there is
        another, else by id; begun now if no stream showed it."""
        call = self.get(turn, index)
        if call is None or (call.call_id and call_id and call.call_id != call_id):
            call = self.by_id(call_id)
        if call is None:
            call = self._turns.setdefault(turn, {})[index] = Call(turn, index)
            out: list[CallUpdate] = [CallBegin(call)]
            self._identify(call, call_id, name)
            return call, out
        return call, [CallIdentified(call)] if self._identify(call, call_id, name) else []

    # -- the model's stream ------------------------------------------------------------------

    def _stream(self, turn: int, event: StreamEvent) -> list[CallUpdate]:
        if event.type == "tool_call_delta":
            call, out = self._seen(turn, event.index)
            call.arguments.feed(event.arguments)
            out.append(CallArgumentsDelta(call, event.arguments))
            return out
        if event.type == "tool_call_start":
            call, out = self._seen(turn, event.index)
            if self._identify(call, event.id, event.name) and not out:
                out.append(CallIdentified(call))
            return out
        if event.type == "tool_call_end":
            ended = self.get(turn, event.index)
            if ended is None:
                return []
            if ended.status == "streaming":
                ended.status = "ready"
            return [CallReady(ended)]
        if event.type == "error":
            return self._unfinished(turn, "incomplete")
        if event.type == "retry":
            discarded = self._turns.pop(turn, {}).values()
            for call in discarded:
                if self._by_id.get(call.call_id) is call:
                    del self._by_id[call.call_id]
            return [CallDiscarded(call) for call in discarded]
        return []

    def _seen(self, turn: int, index: int) -> tuple[Call, list[CallUpdate]]:
        """The call at ``index`` of this attempt; begun on first sight (a delta may come
        before its start)."""
        calls = self._turns.setdefault(turn, {})
        call = calls.get(index)
        if call is not None:
            return call, []
        call = calls[index] = Call(turn, index)
        return call, [CallBegin(call)]

    def _identify(self, call: Call, call_id: str, name: str) -> bool:
        """A backend may re-send id or name for an index: the first non-empty wins."""
        changed = False
        if call_id and not call.call_id:
            call.call_id = call_id
            self._by_id[call_id] = call
            changed = True
        if name and not call.name:
            call.name = name
            changed = True
        return changed

    # -- the loop's word ---------------------------------------------------------------------

    def _finished(self, event: ToolFinished) -> list[CallUpdate]:
        call, out = self.locate(event.turn, event.index, event.call_id, event.name)
        call.status = "error" if event.is_error and event.status == "ok" else event.status
        out.append(CallEnd(call, call.status, event.result, event.diff, event.change, event.duration,
                           job=event.job, images=tuple(event.images)))
        return out

    def _unfinished(self, turn: int, status: CallStatus) -> list[CallUpdate]:
        """The turn or run ended: what is still streaming (``ready``, ``incomplete``) or
        not finished (``interrupted``, ``skipped``) ends so."""
        out: list[CallUpdate] = []
        for call in self._turns.get(turn, {}).values():
            if status in ("ready", "incomplete") and call.status != "streaming":
                continue
            if call.finished:
                continue
            call.status = status
            out.append(CallReady(call) if status == "ready" else CallEnd(call, status))
        return out


def replayed(messages: list[Message]) -> Iterator[Message | CallBegin | CallEnd]:
    """A stored transcript as it would have been told live: each user and assistant message,
    and after an assistant message each of its calls begun whole and ended as saved
    (``interrupted``, without a result, if none was saved); after a user message the calls
    its command ran first (``Message.ran``). Tool results are not repeated."""
    results = {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}
    for message in messages:
        if message.role not in ("user", "assistant"):
            continue
        yield message
        yield from _calls(message, results)
        ran = {m.tool_call_id: m for m in message.ran if m.tool_call_id}
        for first in message.ran:
            yield from _calls(first, ran)


def _calls(message: Message, results: Mapping[str, Message]) -> Iterator[CallBegin | CallEnd]:
    for index, stored in enumerate(message.tool_calls):
        call = Call(0, index, stored.id, stored.name)
        call.arguments.feed(stored.arguments)
        yield CallBegin(call)
        result = results.get(stored.id)
        if result is None:
            call.status = "interrupted"
            yield CallEnd(call, call.status)
        else:
            call.status = _saved_status(result)
            yield CallEnd(call, call.status, result.content, duration=result.duration,
                          output=result.output, job=result.job, images=tuple(result.images))


def _saved_status(result: Message) -> CallStatus:
    """How a saved call ended; a session saved before that was kept says only ok or not."""
    for status in SAVED:
        if result.status == status:
            return status
    return "error" if result.is_error else "ok"
