"""Words the user sends while the agent works: they wait here until the running turn's next
model request, which reads them (Claude Code and Codex both join them to the running turn).
What no request read when the run ended is the front end's to give back."""

from __future__ import annotations

from collections.abc import Callable


class Steers:
    def __init__(self, scrub: Callable[[str], str]) -> None:
        """``scrub``: a key pasted by mistake never reaches the model or the file."""
        self._scrub = scrub
        self._waiting: list[str] = []

    @property
    def waiting(self) -> list[str]:
        """What no request has read yet, oldest first."""
        return list(self._waiting)

    def add(self, text: str) -> str:
        """Queue ``text`` for the next request; returns it as it will be sent."""
        sent = self._scrub(text)
        self._waiting.append(sent)
        return sent

    def take_back(self, text: str) -> bool:
        """Withdraw ``text`` before a request reads it; False when one already has."""
        if text in self._waiting:
            self._waiting.remove(text)
            return True
        return False

    def take(self) -> list[str]:
        taken, self._waiting = self._waiting, []
        return taken
