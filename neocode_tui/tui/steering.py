"""Where a message typed while the agent works goes: into the running turn (Enter), which
reads it at its next model request, or after it (Tab), as a prompt of its own.

The queue above the input shows both until they are read; a message the turn read moves
into the conversation at the point it joined. What the turn never read (it ended first) goes
as the next prompt when the turn ended well, and back into the input otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from neocode_tui.agent.session import AgentSession
    from neocode_tui.tui.conversation import ConversationView
    from neocode_tui.tui.widgets import QueuedPrompts


class Steering:
    """``session`` and ``view`` are read when a message comes: the session may be replaced."""

    def __init__(self, session: Callable[[], AgentSession], queued: QueuedPrompts,
                 view: Callable[[], ConversationView]) -> None:
        self._session, self._queued, self._view = session, queued, view

    def send(self, text: str) -> None:
        """Enter while the agent works: into the running turn, else after it."""
        sent = self._session().steer(text)
        if sent is None:
            self._queued.add(text, "after")
        else:
            self._queued.add(sent, "turn")

    def later(self, text: str) -> None:
        """Tab while the agent works: after this turn."""
        self._queued.add(text, "after")

    def toggle_newest(self) -> None:
        """Tab on an empty prompt: the newest message on its way into the turn waits for after
        it instead; with none, the newest for after it goes into the turn."""
        queued, steers = self._queued, self._session().steers
        item = queued.newest("turn")
        if item is not None and steers.take_back(item.text):
            queued.move(item, "after")
            return
        item = queued.newest("after")
        if item is not None and (sent := self._session().steer(item.text)) is not None:
            queued.drop(item)
            queued.add(sent, "turn")

    def take_last(self) -> str | None:
        """Up on an empty prompt: the last waiting message back into the input to edit."""
        item = self._queued.take_last()
        if item is None:
            return None
        if item.where == "turn":
            self._session().steers.take_back(item.text)
        return item.text

    def read(self, text: str) -> None:
        """The running turn read ``text``: it shows in the conversation where it joined."""
        self._queued.read(text)
        self._view().add_user_message(text)

    def unread(self) -> list[str]:
        """What the turn never read, taken from the session and the queue (it ended first)."""
        left = self._session().steers.take()
        for text in left:
            self._queued.read(text)
        return left
