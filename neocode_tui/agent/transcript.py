"""Keeping the transcript valid: every tool call in it has exactly one result.

Used by the loop after a cancel and by session resume after a kill, so both repair a
dangling tail the same way.
"""

from __future__ import annotations

from neocode_tui.chat import Message, ToolCall

INTERRUPTED = "interrupted by the user: this call was not run"
STOPPED = "interrupted by the user while it ran: it was stopped and may have done part of its work"
NO_RESULT = (
    "interrupted: the session ended before this call gave a result; "
    "it may have run in part or not at all"
)


def unanswered_calls(messages: list[Message]) -> list[ToolCall]:
    """The calls of the last assistant message that have no result after it."""
    for position in range(len(messages) - 1, -1, -1):
        message = messages[position]
        if message.role == "assistant":
            answered = {m.tool_call_id for m in messages[position + 1 :] if m.role == "tool"}
            return [call for call in message.tool_calls if call.id not in answered]
    return []


def tool_result(call: ToolCall, content: str, is_error: bool = False) -> Message:
    return Message(
        role="tool", content=content, tool_call_id=call.id, name=call.name, is_error=is_error
    )


def interrupted_results(messages: list[Message]) -> list[Message]:
    """A result for each call a dead session left unanswered, to append to ``messages``."""
    return [tool_result(call, NO_RESULT, is_error=True) for call in unanswered_calls(messages)]
