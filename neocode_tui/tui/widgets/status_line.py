"""The user's status line: the first line of their command, under the status bar.

The command runs in a worker, one run at a time: a change while it runs asks for one more
run, ``GAP`` seconds after, so a burst of events costs two runs and the screen never waits.
Each run's line (or, when it failed, why) replaces the last.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.content import Content
from textual.widgets import Static

if TYPE_CHECKING:
    from neocode_tui.agent.processes import StatusOutput

GAP = 0.3
"""Claude Code's rate: at most one run every 300 ms."""


class StatusLineRow(Static):
    """One line; a failed command shows why, dimmed, in place of its line."""

    DEFAULT_CSS = """
    StatusLineRow {
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $foreground;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(
        self, run_once: Callable[[], Awaitable[StatusOutput]], *, refresh_seconds: float | None,
        id: str | None = None,
    ) -> None:
        """``run_once``: one run of the command on the session as it is then."""
        super().__init__("", id=id)
        self._run_once, self._refresh = run_once, refresh_seconds
        self._in_flight = self._wanted = False
        self.runs = 0
        """Runs finished, for whoever waits for the line to change."""

    @property
    def settled(self) -> bool:
        """No run going and none asked for: the row shows the newest state."""
        return not (self._in_flight or self._wanted)

    def on_mount(self) -> None:
        self.changed()
        if self._refresh:
            self.set_interval(self._refresh, self.changed)

    def changed(self) -> None:
        """Something the line may show has changed: run the command (again)."""
        if self._in_flight:
            self._wanted = True
            return
        self._in_flight = True
        self.run_worker(self._run(), group="status-line")

    async def _run(self) -> None:
        try:
            output = await self._run_once()
        finally:
            self._in_flight = False
        self.runs += 1
        self._show(output)
        if self._wanted:
            self._wanted = False
            self.set_timer(GAP, self.changed)

    def _show(self, output: StatusOutput) -> None:
        if output.problem:
            self.update(Content.styled(f"status line: {output.problem}", "dim"))
        else:
            self.update(Content.from_rich_text(Text.from_ansi(output.line)))
