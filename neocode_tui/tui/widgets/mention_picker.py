"""The ``@`` file picker shown above the input while a mention is typed.

It searches the session's ``FileIndex`` in a thread, one search at a time (a newer query
replaces an older one), so typing never waits for it. Opening it re-scans the workspace
in the background if the index is stale; meanwhile it answers from the last scan (or,
on a first scan, from what it found so far) and searches again when the scan ends.

``@server:`` where ``server`` is a connected MCP server with resources lists that server's
resource URIs instead (those containing what follows the colon); picking one writes
``@server:uri``, which the session attaches when the prompt is sent.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from textual import work
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from neocode_tui.terminal_text import visible

if TYPE_CHECKING:
    from neocode_tui.agent.extensions import FileIndex, IndexEntry

SHOWN = 30
MENTION_AT_CURSOR = re.compile(r'(?:^|(?<=\s))@("?)([^\s"]*)$')
"""A mention being typed: ``@`` at the start or after a space, up to the cursor."""
SERVER_QUERY = re.compile(r"([A-Za-z0-9_.-]+):(.*)", re.DOTALL)

Resources = Callable[[], Mapping[str, Sequence[str]]]
"""The resource URIs of each connected MCP server that has some, by server name."""


def _no_resources() -> Mapping[str, Sequence[str]]:
    return {}


def _entry_line(entry: IndexEntry) -> Content:
    """A path as found in the workspace: a file name may hold any character but ``/``."""
    path = visible(entry.path)
    return Content.styled(path, "bold $accent") if entry.is_dir else Content(path)


def mention_at(text_before_cursor: str) -> tuple[int, str] | None:
    """(where the ``@`` is, what follows it) when the cursor is in a mention."""
    match = MENTION_AT_CURSOR.search(text_before_cursor)
    if match is None:
        return None
    return match.start(), match.group(2)


class MentionPicker(OptionList):
    """Never focused: the input keeps the keyboard and forwards Up/Down/Tab/Enter/Esc."""

    can_focus = False

    DEFAULT_CSS = """
    MentionPicker {
        display: none;
        height: auto;
        max-height: 12;
        border: none;
        padding: 0 1;
        background: $surface;
    }
    MentionPicker.-open { display: block; }
    """

    def __init__(self, index: Callable[[], FileIndex], *, resources: Resources = _no_resources,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self._index = index
        self._resources = resources
        self.entries: list[IndexEntry] = []
        self.shown_query: str | None = None
        """The query the list shows results for (None: closed, or nothing shown yet)."""
        self.wanted: str | None = None
        """The query typed last; its results replace the list when they are ready."""

    @property
    def is_open(self) -> bool:
        return self.wanted is not None

    def open(self, query: str) -> None:
        if query == self.wanted:
            return
        if self.wanted is None:  # opening: files may have come and gone since the last time
            self._index().refresh_if_stale()
        self.wanted = query
        self.add_class("-open")
        if self.shown_query is None:
            self.set_options([Option(Content.styled("indexing the workspace…", "dim"), disabled=True)])
        self._search(query)

    def close(self) -> None:
        self.wanted = self.shown_query = None
        self.entries = []
        self.clear_options()
        self.remove_class("-open")

    @work(exclusive=True, group="mention-search")
    async def _search(self, query: str) -> None:
        uris = self._resource_matches(query)
        if uris is not None:
            self._show_resources(query, uris)
            return
        index = self._index()
        scan = index.running_scan
        while not index.ready and index.scanning:
            await asyncio.sleep(0.01)  # the first files of a first scan come within a moment
        while True:
            partial = index.snapshot.partial or index.scanning
            entries = await asyncio.to_thread(index.search, query, SHOWN)
            if self.wanted != query:
                return
            self._show(query, entries, index, partial)
            if scan is None or scan.done():
                return
            await asyncio.wait([scan])  # then once more, on the complete scan

    def _show(self, query: str, entries: list[IndexEntry], index: FileIndex, partial: bool) -> None:
        self.shown_query = query
        self.entries = entries
        options = [Option(_entry_line(entry)) for entry in entries]
        if not entries:
            why = visible(index.error or (f"no files match {query!r}" if query else "no files here"))
            options.append(Option(Content.styled(why, "dim"), disabled=True))
        if partial and entries:
            options.append(Option(Content.styled("still indexing: more files to come", "dim"), disabled=True))
        self.set_options(options)
        self.highlighted = 0 if entries else None

    def _resource_matches(self, query: str) -> list[IndexEntry] | None:
        """The entries for ``@server:...`` when ``server`` has resources; None otherwise."""
        from neocode_tui.agent.extensions import IndexEntry

        typed = SERVER_QUERY.fullmatch(query)
        uris = self._resources().get(typed.group(1)) if typed else None
        if typed is None or uris is None:
            return None
        server, part = typed.group(1), typed.group(2).lower()
        return [IndexEntry(f"{server}:{uri}", False) for uri in uris
                if part in uri.lower() and not any(char.isspace() or char == '"' for char in uri)][:SHOWN]

    def _show_resources(self, query: str, entries: list[IndexEntry]) -> None:
        self.shown_query = query
        self.entries = entries
        options = [Option(Content(visible(entry.path))) for entry in entries]
        if not entries:
            options.append(Option(Content.styled(f"no resources match {query!r}", "dim"), disabled=True))
        self.set_options(options)
        self.highlighted = 0 if entries else None

    def move(self, step: int) -> None:
        if self.entries:
            self.highlighted = ((self.highlighted or 0) + step) % len(self.entries)

    @property
    def chosen(self) -> IndexEntry | None:
        if not self.entries or self.highlighted is None or self.highlighted >= len(self.entries):
            return None
        return self.entries[self.highlighted]
