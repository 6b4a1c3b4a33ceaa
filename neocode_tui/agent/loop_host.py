"""What the loop asks whoever runs it, around each request: the session's budget, compaction,
window and background commands hook in here, and a loop run on its own asks nobody."""

from __future__ import annotations

from typing import Protocol

from neocode_tui.events import ErrorInfo


class LoopHost(Protocol):
    def sent_from(self) -> int:
        """How many of the oldest messages a request leaves out: those of a history too long
        for the window that could not be compacted (they stay in the transcript)."""
        ...

    async def before_request(self) -> ErrorInfo | None:
        """Why the next request must not be sent (a spending limit), or None; a refusal ends
        the run as an error."""
        ...

    async def between_turns(self) -> None:
        """Awaited before each request of a run after its first (the transcript is valid
        then): compaction, so a long run goes on inside the window."""
        ...

    def pending_notes(self) -> list[str]:
        """Lines the model is told before its next request, after the messages it has seen
        (which stay as they were sent): background commands that ended."""
        ...

    def steering(self) -> bool:
        """The user sent words to the running turn that it has not read yet: a turn that
        would end goes on to read them."""
        ...

    def take_steers(self) -> list[str]:
        """The user's words sent to the running turn since its last request, oldest first:
        they join it as user messages before the next request."""
        ...


class Alone:
    """The host of a loop run on its own (a test, a benchmark, a subagent): it sends the
    whole transcript, every request, and has nothing to add."""

    def sent_from(self) -> int:
        return 0

    async def before_request(self) -> ErrorInfo | None:
        return None

    async def between_turns(self) -> None:
        return None

    def pending_notes(self) -> list[str]:
        return []

    def steering(self) -> bool:
        return False

    def take_steers(self) -> list[str]:
        return []
