"""Which of a history's newest messages fit a token budget: what a request sends of a
history too long for the model's window that could not be compacted (a resumed session of
10,000 messages, a summary request that failed).

The cut is always at a prompt, so what is sent starts with the user's message and no tool
call is parted from its result; the older messages stay in the transcript, the session
file and on screen. Only the messages kept are counted, from the newest back: the cost is
what fits the window, not the history's length.
"""

from __future__ import annotations

from collections.abc import Sequence

from neocode_tui.agent.context.figure import message_tokens
from neocode_tui.chat import Message


def newest_that_fit(messages: Sequence[Message], budget: int) -> int:
    """The position of the first message sent: 0 when the whole history fits ``budget``
    tokens, else the earliest prompt from which the rest does. When not even the last
    prompt's turn fits, that prompt's position (what cannot be cut further)."""
    used = 0
    start: int | None = None
    for position in range(len(messages) - 1, -1, -1):
        used += message_tokens(messages[position])
        if used > budget:
            break
        if messages[position].role == "user":
            start = position
    else:
        return 0
    if start is not None:
        return start
    return next((p for p in range(len(messages) - 1, -1, -1) if messages[p].role == "user"), 0)

