"""The bar over the prompt while the conversation is searched (Ctrl+F, or the user's key).

Typing edits the query and says how many matches there are; Enter jumps to the newest and
from then on ``n`` goes to the next one back, ``N`` to the one after, both wrapping around;
Up and Down jump to the prompt before or after; ``/`` edits the query again; Esc closes the
bar and the marks, leaving the conversation where it was scrolled to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Input, Static

from neocode_tui.terminal_text import visible

if TYPE_CHECKING:
    from neocode_tui.tui.conversation.search import Found, TranscriptFinder

_EDITING = "Enter jumps to the newest · ↑↓ prompts · Esc closes"
_BROWSING = "n older · N newer · ↑↓ prompts · / new search · Esc closes"


class _Query(Input):
    """The query's input: while browsing, n, N, / and Enter move instead of typing."""

    def __init__(self, bar: TranscriptSearchBar) -> None:
        super().__init__(placeholder="search the conversation", compact=True, id="transcript-query")
        self._bar = bar

    async def _on_key(self, event: events.Key) -> None:
        if self._bar.key(event.key, event.character):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)


class TranscriptSearchBar(Horizontal):
    DEFAULT_CSS = """
    TranscriptSearchBar {
        display: none;
        height: 1;
        padding: 0 1;
    }
    TranscriptSearchBar.-shown { display: block; }
    TranscriptSearchBar > #transcript-query { width: 30; border: none; height: 1; padding: 0; }
    TranscriptSearchBar > #transcript-found { width: 1fr; color: $text-muted; padding: 0 0 0 2; }
    """

    def __init__(self, finder: Callable[[], TranscriptFinder], closed: Callable[[], object], *,
                 id: str | None = None) -> None:
        """``finder``: the conversation's search; ``closed``: called when Esc closes the bar."""
        super().__init__(id=id)
        self._finder = finder
        self._when_closed = closed
        self.browsing = False
        """After Enter: the keys move between matches rather than type."""
        self.query_input = _Query(self)
        self.said = Static(id="transcript-found")

    def compose(self) -> ComposeResult:
        yield Static("search: ", classes="label")
        yield self.query_input
        yield self.said

    @property
    def is_open(self) -> bool:
        return self.has_class("-shown")

    def open(self) -> None:
        self.add_class("-shown")
        self.browsing = False
        self.query_input.focus()
        self._say(self._finder().search(self.query_input.value))

    def close(self) -> None:
        self.remove_class("-shown")
        self._finder().close()
        self._when_closed()

    def on_input_changed(self, event: Input.Changed) -> None:
        if self.is_open:
            self.browsing = False
            self._say(self._finder().search(event.value))

    def key(self, key: str, character: str | None) -> bool:
        """Handles ``key`` for the search; False when the input is to type it."""
        finder = self._finder()
        if key == "escape":
            self.close()
        elif key in ("up", "down"):
            self._say(finder.prompt(-1 if key == "up" else 1))
        elif key == "enter" or self.browsing and character in ("n", "N"):
            self.browsing = bool(finder.query)
            self._say(finder.step(1 if character == "N" else -1))
        elif self.browsing and character == "/":
            self.browsing = False
            self.query_input.value = ""
        else:
            if self.browsing and (character or key == "backspace"):
                self.browsing = False
            return False
        return True

    def _say(self, found: Found) -> None:
        if not found.query:
            self.said.update(_EDITING)
            return
        if not found.blocks:
            self.said.update(Content.assemble(Content.styled("no match", "$warning"), " · Esc closes"))
            return
        places = "place" if found.blocks == 1 else "places"
        count = f"{found.matches} match{'es' if found.matches != 1 else ''} in {found.blocks} {places}"
        if self.browsing and found.at is not None:
            count = f"{found.at} of {found.blocks} {places} ({found.matches} matches)"
        self.said.update(Content.assemble(Content.styled(visible(count), "bold"), " · ",
                                          _BROWSING if self.browsing else _EDITING))
