"""Keeping the transcript valid: every tool call in it has exactly one result.

The loop uses ``unanswered_calls`` after a cancel; loading a saved session uses ``repair``,
which turns any sequence of messages (a kill mid-call, lost or garbled records) into one a
model server accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from neocode_tui.chat import Image, Message, PrintedOutput, ToolCall

INTERRUPTED = "interrupted by the user: this call was not run"
STOPPED = "interrupted by the user while it ran: it was stopped and may have done part of its work"
NO_RESULT = (
    "interrupted: no result was saved for this call (the session ended while it ran, or "
    "its record was lost); it may have run in part or not at all"
)
LOST_START = "(the start of this conversation could not be read from the saved session)"


def unanswered_calls(messages: list[Message]) -> list[ToolCall]:
    """The calls of the last assistant message that have no result after it."""
    for position in range(len(messages) - 1, -1, -1):
        message = messages[position]
        if message.role == "assistant":
            answered = {m.tool_call_id for m in messages[position + 1 :] if m.role == "tool"}
            return [call for call in message.tool_calls if call.id not in answered]
    return []


def tool_result(
    call: ToolCall, content: str, is_error: bool = False, duration: float | None = None,
    images: Sequence[Image] = (), status: str = "", output: PrintedOutput | None = None,
    job: str = "",
) -> Message:
    return Message(
        role="tool", content=content, tool_call_id=call.id, name=call.name, is_error=is_error,
        duration=duration, images=list(images), status=status, output=output, job=job,
    )


class Repaired(NamedTuple):
    messages: list[Message]
    notes: list[str]
    """What was changed, in words for the user; empty when nothing was."""


def repair(messages: Sequence[Message]) -> Repaired:
    """``messages`` made valid for any model server, changing as little as possible.

    Afterwards: the first message is the user's; each assistant message with tool calls is
    followed at once by exactly one result per call, in the calls' order, and by nothing
    else that is a tool result; no call id is empty or repeated within its message. A
    missing result becomes ``NO_RESULT``; a result for an unknown, closed or already
    answered call is dropped, as is a call whose id is empty or repeats one before it in
    its message (ids may repeat across messages: some servers number calls per turn).
    Repairing twice changes nothing more, and repairing a valid continuation of a repaired
    transcript changes only the continuation, so a session can be loaded, extended and
    loaded again.
    """
    fixed: list[Message] = []
    pending: list[ToolCall] = []
    answers: dict[str, Message] = {}
    counts = {"missing": 0, "orphans": 0, "bad_calls": 0, "reordered": 0, "lost_start": 0}

    def close_block() -> None:
        if list(answers) != [call.id for call in pending if call.id in answers]:
            counts["reordered"] += 1
        for call in pending:
            if call.id not in answers:
                counts["missing"] += 1
            fixed.append(answers.get(call.id) or tool_result(call, NO_RESULT, is_error=True, status="interrupted"))
        pending.clear()
        answers.clear()

    for message in messages:
        if message.role == "tool":
            call = next((c for c in pending if c.id == message.tool_call_id), None)
            if call is None or call.id in answers:
                counts["orphans"] += 1
            else:
                answers[call.id] = message
            continue
        close_block()
        if message.role == "assistant":
            calls: list[ToolCall] = []
            for call in message.tool_calls:
                if call.id and all(call.id != kept.id for kept in calls):
                    calls.append(call)
                else:
                    counts["bad_calls"] += 1
            if len(calls) != len(message.tool_calls):
                message = message.model_copy(update={"tool_calls": calls})
            pending.extend(calls)
        if not fixed and message.role != "user":
            counts["lost_start"] = 1
            fixed.append(Message(role="user", content=LOST_START))
        fixed.append(message)
    close_block()
    return Repaired(fixed, _notes(counts))


def _notes(counts: dict[str, int]) -> list[str]:
    notes = []
    if counts["missing"]:
        notes.append(f"{counts['missing']} tool call(s) had no saved result and are marked "
                     "interrupted")
    if counts["orphans"]:
        notes.append(f"{counts['orphans']} tool result(s) without their call were dropped")
    if counts["bad_calls"]:
        notes.append(f"{counts['bad_calls']} tool call(s) with an empty or repeated id were "
                     "dropped")
    if counts["reordered"]:
        notes.append(f"the tool results of {counts['reordered']} message(s) were put back in "
                     "the order of their calls")
    if counts["lost_start"]:
        notes.append("the start of the conversation was lost")
    return notes
