"""The background commands, live: each one's state, time and latest lines as they come, and
a key to stop the chosen one. F2 and ``/ps`` open it.

It reads the session's ``BackgroundJobs`` twice a second while it is open, and draws again
only when something it shows has changed; closed, it costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from neocode_tui.agent.processes import PS_LINES, seconds
from neocode_tui.live_output import LIVE_OUTPUT_LINES
from neocode_tui.terminal_text import visible
from neocode_tui.tui.screens.dialog import dialog_css

if TYPE_CHECKING:
    from neocode_tui.agent.processes import BackgroundJobs, Job

_REFRESH_SECONDS = 0.5


def _state(job: Job) -> tuple[str, str]:
    """Its icon and words, and the style they are drawn in."""
    ran = seconds(job.elapsed())
    if not job.finished:
        return f"◐ running · {ran}", "bold $primary"
    if job.killed_by:
        return f"⏹ {job.status} · ran {ran}", "$warning"
    if job.code == 0:
        return f"✓ {job.status} · ran {ran}", "$success"
    return f"✗ {job.status} · ran {ran}", "$error"


def jobs_text(jobs: list[Job], chosen: int) -> Content:
    """Each command: the chosen one marked, with its latest lines; the others with fewer."""
    parts: list[tuple[str, str]] = []
    for place, job in enumerate(jobs):
        words, style = _state(job)
        here = place == chosen
        parts += [(f"{'›' if here else ' '} {job.id:<4}", "bold" if here else ""), (f"{words:<26}", style),
                  (visible(job.summary), "bold" if here else "")]
        lines = job.latest.lines[-(LIVE_OUTPUT_LINES if here else PS_LINES):]
        if here and job.latest.total_lines > len(lines):
            parts.append((f"\n      … {job.latest.total_lines - len(lines):,} earlier lines", "dim italic"))
        parts += [(f"\n      {visible(line)}", "" if here else "$text-muted") for line in lines]
        parts.append(("\n", ""))
    return Content.assemble(*parts).rstrip()


class JobsScreen(ModalScreen[None]):
    DEFAULT_CSS = dialog_css("JobsScreen") + """
    JobsScreen #body { height: auto; max-height: 30; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    BINDINGS = [
        Binding("escape,f2,q", "dismiss", "Close", show=False),
        Binding("up", "choose(-1)", show=False),
        Binding("down", "choose(1)", show=False),
        Binding("k,delete", "stop", "Stop", show=False),
    ]

    def __init__(self, jobs: BackgroundJobs) -> None:
        super().__init__()
        self.jobs = jobs
        self.chosen = next((place for place, job in enumerate(self._listed) if not job.finished), 0)
        self._shown: tuple[object, ...] = ()

    @property
    def _listed(self) -> list[Job]:
        return list(self.jobs.jobs.values())

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(id="title")
            yield Static(id="body")
            yield Static(Content.from_markup(
                "[b]↑ ↓[/b] choose   [b]k[/b] stop the chosen one   [b]esc[/b] close"), id="keys")

    def on_mount(self) -> None:
        self._draw()
        self.set_interval(_REFRESH_SECONDS, self._draw)

    def _draw(self) -> None:
        """Again only when what it shows has changed: a state, a time, a new line."""
        listed = self._listed
        now = (self.chosen, *((_state(job), job.latest.total_lines) for job in listed))
        if now == self._shown:
            return
        self._shown = now
        running = len(self.jobs.running)
        self.query_one("#title", Static).update(
            f"Background commands · {running} running" if listed else "No background commands")
        self.query_one("#body", Static).update(jobs_text(listed, self.chosen))

    def action_choose(self, step: int) -> None:
        listed = self._listed
        if listed:
            self.chosen = (self.chosen + step) % len(listed)
            self._draw()

    async def action_stop(self) -> None:
        listed = self._listed
        if listed and not listed[self.chosen].finished:
            await self.jobs.kill(listed[self.chosen].id, "the user")
            self._draw()
