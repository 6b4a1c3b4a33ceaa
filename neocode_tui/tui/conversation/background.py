"""A command panel once its call went on in the background: what its subtitle says and when
it must be drawn again.

The call has ended for the model, but not for the user: the panel keeps saying that the
command runs, for how long, and shows its latest lines, until it ends. ``job`` is None when
the command is not this run's (a resumed session's): the panel says only where it went.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from neocode_tui.agent.processes import seconds

if TYPE_CHECKING:
    from neocode_tui.agent.processes import Job
    from neocode_tui.live_output import LiveTail

@dataclass
class Backgrounded:
    """The background command a call went on as."""

    job_id: str
    job: Job | None
    shown: tuple[object, ...] = ()
    """What was drawn last: the panel is drawn again only when this changes."""

    @property
    def running(self) -> bool:
        return self.job is not None and not self.job.finished

    @property
    def output(self) -> LiveTail | None:
        return self.job.latest if self.job is not None else None

    def state(self) -> tuple[str, str, str]:
        """The subtitle's icon, words and palette colour name."""
        job = self.job
        if job is None:
            return "↗", f"went on in the background as {self.job_id}", "muted"
        ran = seconds(job.elapsed())
        if not job.finished:
            return "◐", f"running in the background as {job.id} · {ran}", "primary"
        if job.killed_by:
            return "⏹", f"{job.id} {job.status} · ran {ran}", "warning"
        return ("✓" if job.code == 0 else "✗"), f"{job.id} ended, {job.status} · ran {ran}", (
            "success" if job.code == 0 else "error")

    def moved(self) -> bool:
        """Something the panel shows has changed since it was last drawn."""
        job = self.job
        now: tuple[object, ...] = () if job is None else (
            self.state(), job.latest.total_lines, tuple(job.latest.lines[-1:]))
        if now == self.shown:
            return False
        self.shown = now
        return True


def output_so_far(result: str) -> str:
    """A backgrounded call's result without its first lines (the id and the model's tools
    to read it): what the command had printed when it went."""
    head, _, rest = result.partition("\n")
    if not head.startswith("id: "):
        return result
    _, _, printed = rest.partition("\n")
    return printed
