"""Commands that go on while the conversation does: started with ``run_in_background``, or
sent there with Ctrl+B while they ran in the foreground.

A job is a ``RunningCommand`` someone else stopped waiting for: the same sandbox, process
tree and output caps as a foreground command. What it prints is kept in two bounded
pieces: the output not read yet (head and tail, as a foreground result is cut), which
``bash_output`` takes, and its latest lines, which its panel and ``/ps`` show. At most ``MAX_RUNNING``
run at once and ``KEEP_FINISHED`` finished ones are remembered; when the session ends every
one still running is killed, its whole tree; a fresh conversation (``/clear``) keeps them.
The model hears of a job that ended without it reading the end at its next request
(``take_notes``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from neocode_tui.errors import NeoCodeError
from neocode_tui.live_output import LineCap, LiveTail

if TYPE_CHECKING:
    from neocode_tui.agent.tools.shell import RunningCommand

MAX_RUNNING = 8
"""Background commands running at once."""
KEEP_FINISHED = 16
"""Finished ones remembered (their last output and exit code); older ones are forgotten."""
PS_LINES = 3
"""Latest lines ``/ps`` shows of each."""
SUMMARY_CHARS = 60
"""Characters of a command's first line that name it in ``/ps`` and in notes."""


class JobNotFound(NeoCodeError):
    pass


class TooManyJobs(NeoCodeError):
    pass


def seconds(value: float) -> str:
    """``8.2 s``, ``42 s``, ``3 min 5 s``: as precise as a person reads a duration."""
    if value < 10:
        return f"{value:.1f} s"
    if value < 60:
        return f"{value:.0f} s"
    return f"{int(value // 60)} min {int(value % 60)} s"


class Job:
    """One background command; ``read`` takes what it printed since the last read."""

    def __init__(
        self, job_id: str, command: str, running: RunningCommand, started: float,
        jobs: BackgroundJobs,
    ) -> None:
        self.id = job_id
        self.command = command
        self.running = running
        self.started = started
        self.ended: float | None = None
        self.code: int | None = None
        self.killed_by: str | None = None
        """Who stopped it ("kill_bash", "the user", "the end of the session"), if anyone."""
        self.notes: list[str] = []
        self.told = False
        """The model knows how it ended (it read the end, or was told)."""
        self._jobs = jobs
        self._lines = LineCap()
        self.latest = LiveTail()
        """Its latest lines, as its panel shows them (``/ps`` the last ``PS_LINES``)."""
        running.capture.on_output = self._feed
        self.task = asyncio.create_task(self._watch())

    @property
    def finished(self) -> bool:
        return self.ended is not None

    @property
    def summary(self) -> str:
        lines = self.command.strip().splitlines()
        first = lines[0] if lines else ""
        if len(first) > SUMMARY_CHARS:
            return first[: SUMMARY_CHARS - 1] + "…"
        return first + (" …" if len(lines) > 1 else "")

    def elapsed(self) -> float:
        """Seconds it ran, or has run so far."""
        return (self.ended if self.ended is not None else self._jobs.clock()) - self.started

    @property
    def status(self) -> str:
        if self.ended is None:
            return "running"
        if self.killed_by:
            return f"stopped by {self.killed_by}"
        return f"exit code {self.code}"

    def read(self) -> str:
        """The output since the last read (its head and tail, if long); once the command
        has ended, how it ended."""
        text = self.running.capture.take(whole_lines=self.ended is None) or "(no new output)"
        if self.ended is None:
            return f"{text}\n[still running after {seconds(self.elapsed())}]"
        self.told = True
        ran = seconds(self.elapsed())
        return "\n".join([text, *self.notes, f"[{self.status}; ran {ran}]"])

    def _feed(self, text: str) -> None:
        if ended := self._lines.feed(text):
            self.latest.feed(self._jobs.scrub(ended))  # whole lines: a key is never split

    async def _watch(self) -> None:
        running = self.running
        try:
            await running.protocol.exited
            self.notes += await running.settle()
        except asyncio.CancelledError:
            running.kill()
            raise
        finally:
            self.code = running.returncode
            self.ended = self._jobs.clock()
            if note := running.close():
                self.notes.append(note)
            self._jobs.ended(self)


class BackgroundJobs:
    """The session's background commands, by id (``b1``, ``b2``, …)."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, scrub: Callable[[str], str] = str,
        report: Callable[[Job], None] | None = None,
    ) -> None:
        """``scrub``: the session's secrets holder (the latest lines are scrubbed as they
        come); ``report``: told when a job ends (the session says so to the user)."""
        self.clock = clock
        self.scrub = scrub
        self.report = report
        self.jobs: dict[str, Job] = {}
        self._numbered = 0
        self._foreground: list[asyncio.Future[None]] = []

    @property
    def running(self) -> list[Job]:
        return [job for job in self.jobs.values() if not job.finished]

    def check_room(self) -> None:
        if len(self.running) >= MAX_RUNNING:
            raise TooManyJobs(
                f"not started: {MAX_RUNNING} background commands are already running, the "
                "most at once; stop one with kill_bash or wait for one to finish"
            )

    def adopt(self, running: RunningCommand, command: str, started: float, so_far: str = "") -> Job:
        """``running`` goes on as a job (``check_room`` first); ``so_far``: what it printed
        before, for its latest lines."""
        self._numbered += 1
        job = Job(f"b{self._numbered}", command, running, started, self)
        if so_far:
            job.latest.feed(self.scrub(so_far) + "\n")
        self.jobs[job.id] = job
        finished = [old for old in self.jobs.values() if old.finished]
        for old in finished[: max(len(finished) - KEEP_FINISHED, 0)]:
            del self.jobs[old.id]
        return job

    def get(self, job_id: str) -> Job:
        job = self.jobs.get(job_id.strip())
        if job is None:
            known = ", ".join(self.jobs) or "none"
            asked = job_id if len(job_id) <= 40 else job_id[:40] + "…"
            raise JobNotFound(f"no background command with id {asked!r} (the ids: {known})")
        return job

    async def kill(self, job_id: str, by: str) -> Job:
        """Stop the job and everything it started; a finished one is left as it ended."""
        job = self.get(job_id)
        await self._kill(job, by)
        return job

    async def _kill(self, job: Job, by: str) -> None:
        if job.finished:
            return
        job.killed_by = by
        job.running.tree.kill()  # its shell exits, and the watcher winds the job up
        await asyncio.wait([job.task])

    # -- the foreground command, for Ctrl+B -------------------------------------------

    @contextmanager
    def foreground(self) -> Iterator[asyncio.Future[None]]:
        """Around a foreground command: the future is set when the user sends it to the
        background."""
        detach: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._foreground.append(detach)
        try:
            yield detach
        finally:
            self._foreground.remove(detach)

    def send_to_background(self) -> str | None:
        """Send the command running in the foreground to the background; why not, if not."""
        waiting = [detach for detach in self._foreground if not detach.done()]
        if not waiting:
            return "no command is running in the foreground"
        try:
            self.check_room()
        except TooManyJobs:
            return (f"{MAX_RUNNING} background commands are already running, the most at "
                    "once: /ps kill ID stops one")
        waiting[0].set_result(None)
        return None

    # -- telling ------------------------------------------------------------------------

    def ended(self, job: Job) -> None:
        if self.report is not None and job.killed_by is None:  # a stop was asked: no news
            self.report(job)

    def take_notes(self) -> list[str]:
        """A line per running job whose protected entries were set aside just now (before
        the next request, as a foreground command's are at its end), and per job that ended
        since the model last heard of it (it did not read the end with bash_output, nor stop
        it itself)."""
        notes = []
        for job in self.running:  # what it made so far is read by nobody meanwhile
            if moved := job.running.set_aside():
                notes.append(f"background command {job.id} ({job.summary}), still running: {moved}")
        for job in self.jobs.values():
            if job.finished and not job.told:
                job.told = True
                if job.killed_by != "kill_bash":
                    notes.append(f"background command {job.id} ({job.summary}) ended: "
                                 f"{job.status}; bash_output {job.id} reads the rest of its output")
        return [self.scrub(note) for note in notes]

    def new_conversation(self) -> list[Job]:
        """A fresh conversation (``/clear``): the jobs go on, since they are the user's
        (a dev server outlives a topic) and ``/ps`` still lists them; its model did not
        start them, so it hears nothing of how they end (the user does). The ones running."""
        for job in self.jobs.values():
            job.told = True
        return self.running

    def listing(self) -> str:
        """What ``/ps`` shows: each job, its state and time, its latest lines."""
        if not self.jobs:
            return "no background commands: Ctrl+B sends a running command there"
        running = len(self.running)
        lines = [f"background commands, {running} running:"]
        for job in self.jobs.values():
            state = f"{job.status}, {seconds(job.elapsed())}"
            lines.append(f"  {job.id:<4}{state:<22}  {job.summary}")
            lines += [f"        {line}" for line in job.latest.lines[-PS_LINES:]]
        if running:
            lines += ["", "/ps kill ID stops one"]
        return self.scrub("\n".join(lines))

    async def aclose(self) -> list[Job]:
        """Kill every job still running (the session ends); the ones that were."""
        running = self.running
        await asyncio.gather(*(self._kill(job, "the end of the session") for job in running))
        return running


def stopped_words(jobs: list[Job]) -> str:
    """``stopped 2 background commands (b1: npm run dev, b3: sleep 300)``."""
    listed = ", ".join(f"{job.id}: {job.summary}" for job in jobs)
    return f"stopped {len(jobs)} background command{'s' * (len(jobs) != 1)} ({listed})"
