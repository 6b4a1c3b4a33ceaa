"""``/uncompact``: the history from before the last compaction, back, while nothing has been
said since. Once a prompt is sent or a turn answered on the summary, going back would drop
that exchange, so it is refused with the reason (``/rewind`` still goes back to a prompt)."""

from __future__ import annotations

from neocode_tui.agent.context.figure import about
from neocode_tui.agent.loop_events import Compaction
from neocode_tui.chat import Message


class Uncompact:
    """The last compaction's before and after."""

    def __init__(self) -> None:
        self._before: list[Message] | None = None
        self._after: list[Message] = []
        self._what: Compaction | None = None

    def compacted(self, before: list[Message], after: list[Message]) -> None:
        self._before, self._after, self._what = list(before), list(after), None

    def told(self, what: Compaction) -> None:
        self._what = what

    def restored(self) -> None:
        self._before = self._what = None

    def history(self, now: list[Message]) -> list[Message] | str:
        """The history to restore, or why there is none."""
        if self._before is None or self._what is None:
            return "nothing to uncompact: no compaction in this conversation to undo"
        if now != self._after:
            return ("nothing to uncompact: the conversation went on after the compaction (a prompt or an "
                    "answer since); /rewind goes back to an earlier prompt")
        return self._before

    def restored_words(self) -> str:
        what = self._what
        if what is None:
            return ""
        return (f"uncompacted: the {what.summarised} summarised messages are back "
                f"({about(what.tokens_before)} tokens in the context again)")
