"""The prompt's history: what was sent (in this run and, from the data folder, in earlier
runs in this folder), and the line that shows a Ctrl+R search while it goes on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

from neocode_tui.terminal_text import visible

if TYPE_CHECKING:
    from neocode_tui.agent.session import AgentSession
    from neocode_tui.agent.store import PromptLog


class PromptHistory:
    """Sent prompts, newest last, with a cursor that Up/Down move; the draft survives."""

    def __init__(self) -> None:
        self._entries: list[str] = []
        self._this_run: list[str] = []
        self._position = 0
        self._draft = ""
        self._log: PromptLog | None = None

    def keep_in(self, log: PromptLog, earlier: list[str]) -> None:
        """From now on each prompt is also kept in ``log``; ``earlier`` (oldest first) comes
        before this run's prompts."""
        self._log = log
        self._entries = []
        for text in earlier:
            self._append(text)
        for text in self._this_run:  # sent before the earlier ones were read
            self._append(text)
            log.add(text)
        self._position = len(self._entries)

    def add(self, text: str) -> None:
        self._this_run.append(text)
        self._append(text)
        self._position = len(self._entries)
        if self._log is not None:
            self._log.add(text)

    def _append(self, text: str) -> None:
        if not self._entries or self._entries[-1] != text:
            self._entries.append(text)

    def previous(self, current: str) -> str | None:
        if self._position == 0:
            return None
        if self._position == len(self._entries):
            self._draft = current
        self._position -= 1
        return self._entries[self._position]

    def search(self, query: str, before: int | None = None) -> tuple[int, str] | None:
        """The newest prompt before index ``before`` (else the newest of all) that holds
        ``query``, ignoring case, with its index."""
        wanted = query.casefold()
        end = len(self._entries) if before is None else before
        for index in range(end - 1, -1, -1):
            if wanted in self._entries[index].casefold():
                return index, self._entries[index]
        return None

    def next(self) -> str | None:
        if self._position >= len(self._entries):
            return None
        self._position += 1
        if self._position == len(self._entries):
            return self._draft
        return self._entries[self._position]


def load_earlier(history: PromptHistory, session: AgentSession) -> None:
    """This folder's prompts of earlier runs, and those of a resumed session that the history
    file does not hold (sent before it was kept). Read at once, not in a thread: the file is
    bounded (a few milliseconds to read), and Up pressed as soon as the model shows in the
    status bar must find them."""
    from neocode_tui.agent import extensions
    from neocode_tui.agent.store import PromptLog

    log = PromptLog(session.workspace, session.secrets)
    kept = log.load()
    held = set(kept)
    typed = (extensions.typed_part(message.content).strip() for message in session.messages
             if message.role == "user")
    history.keep_in(log, [*(text for text in typed if text and text not in held), *kept])


@dataclass
class Search:
    """A Ctrl+R search under way: what is sought, what the box held before (Esc puts it
    back), and the prompt found (its index in the history and its text), if any."""

    query: str
    draft: str
    found: tuple[int, str] | None = None


class SearchBar(Static):
    """The line over the prompt while Ctrl+R searches: the query, whether a prompt holds
    it (that prompt is in the box, the query marked in it), and the keys."""

    DEFAULT_CSS = """
    SearchBar {
        display: none;
        height: 1;
        padding: 0 1;
        color: $text-muted;
    }
    SearchBar.-shown { display: block; }
    """

    def show_search(self, search: Search | None) -> None:
        self.set_class(search is not None, "-shown")
        if search is None:
            return
        query = Content.styled(visible(search.query), "bold $text")
        found = "" if search.found else Content.styled("  no earlier prompt holds it", "$warning")
        keys = ("  ·  Ctrl+R older  ·  Enter keep  ·  Esc cancel" if search.found
                else "  ·  Backspace  ·  Esc cancel")
        self.update(Content.assemble("search prompts: ", query, found, keys))
