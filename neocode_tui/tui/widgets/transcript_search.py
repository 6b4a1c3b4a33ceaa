"""The bar over the prompt while the conversation is searched (Ctrl+F, or the user's key).

Typing edits the query and says how many matches there are; Enter jumps to the newest and
from then on ``n`` (or Enter) goes to the next one back, ``N`` to the one after, both
wrapping around; Up and Down jump to the prompt before or after; ``/`` edits the query
again; Esc closes the bar and the marks, leaving the conversation where it was scrolled to.
While it jumps the bar itself has the keys, so n and N are not typed into the query.
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

_EDITING = "Enter jumps · Esc closes"
_BROWSING = "n older · N newer · ↑↓ prompts · / edit · Esc closes"


class _Query(Input):
    """The query as it is typed."""

    def __init__(self, bar: TranscriptSearchBar) -> None:
        super().__init__(placeholder="prompts, answers, output", compact=True, id="transcript-query")
        self._bar = bar

    async def _on_key(self, event: events.Key) -> None:
        if event.key in ("escape", "enter", "up", "down"):
            event.stop()
            event.prevent_default()
            self._bar.key(event.key, event.character)
            return
        await super()._on_key(event)


class TranscriptSearchBar(Horizontal, can_focus=True):
    DEFAULT_CSS = """
    TranscriptSearchBar {
        display: none;
        height: 1;
        padding: 0 1;
    }
    TranscriptSearchBar.-shown { display: block; }
    TranscriptSearchBar > .label { width: auto; color: $text-muted; }
    TranscriptSearchBar > #transcript-query { width: 26; border: none; height: 1; padding: 0; }
    TranscriptSearchBar.-browsing > #transcript-query { display: none; }
    TranscriptSearchBar > #transcript-found { width: 1fr; color: $text-muted; padding: 0 0 0 1; }
    """

    def __init__(self, finder: Callable[[], TranscriptFinder], closed: Callable[[], object], *,
                 id: str | None = None) -> None:
        """``finder``: the conversation's search; ``closed``: called when Esc closes the bar."""
        super().__init__(id=id)
        self._finder = finder
        self._when_closed = closed
        self.query_input = _Query(self)
        self.said = Static(id="transcript-found")

    def compose(self) -> ComposeResult:
        yield Static("search:", classes="label")
        yield self.query_input
        yield self.said

    @property
    def is_open(self) -> bool:
        return self.has_class("-shown")

    @property
    def browsing(self) -> bool:
        """After Enter: the keys move between matches rather than type."""
        return self.has_class("-browsing")

    def open(self) -> None:
        self.add_class("-shown")
        self._edit()

    def close(self) -> None:
        self.remove_class("-shown", "-browsing")
        self._finder().close()
        self._when_closed()

    def _edit(self) -> None:
        self.remove_class("-browsing")
        self.query_input.focus()
        self._say(self._finder().search(self.query_input.value))

    def on_input_changed(self, event: Input.Changed) -> None:
        if self.is_open:
            self._say(self._finder().search(event.value))

    def on_key(self, event: events.Key) -> None:
        """The keys while the bar jumps (it has the focus then)."""
        if self.key(event.key, event.character):
            event.stop()
            event.prevent_default()

    def key(self, key: str, character: str | None) -> bool:
        """Handles ``key``; False when it is none of the search's."""
        finder = self._finder()
        if key == "escape":
            self.close()
        elif key in ("up", "down"):
            self._say(finder.prompt(-1 if key == "up" else 1))
        elif key == "enter" or self.browsing and character in ("n", "N"):
            if finder.query and not self.browsing:
                self.add_class("-browsing")
                self.focus()
            self._say(finder.step(1 if character == "N" else -1))
        elif self.browsing and (character == "/" or key == "backspace"):
            self._edit()
        else:
            return False
        return True

    def _say(self, found: Found) -> None:
        query = Content.styled(visible(self.query_input.value), "bold $text")
        if not found.query:
            self.said.update(_EDITING)
        elif not found.blocks:
            self.said.update(Content.assemble(Content.styled("no match", "$warning"), " · Esc closes"))
        elif self.browsing:
            at = f"{found.at} of {found.blocks}" if found.at is not None else f"{found.blocks} places"
            self.said.update(Content.assemble(query, " · ", Content.styled(at, "bold"), " · ", _BROWSING))
        else:
            places = "place" if found.blocks == 1 else "places"
            count = f"{found.matches} match{'es' if found.matches != 1 else ''}, {found.blocks} {places}"
            self.said.update(Content.assemble(Content.styled(count, "bold"), " · ", _EDITING))
