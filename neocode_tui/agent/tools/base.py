"""What every tool is: a pydantic argument model, a kind, a one-line summary and a run.

The kind, and the paths a call writes, decide approval (reads never ask; edits and
commands may). ``summary`` takes the raw argument mapping, not the validated model, so the
screen can label a call while its arguments are still streaming in.
"""

from __future__ import annotations

import asyncio
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from neocode_tui.agent.loop_events import FileChange
from neocode_tui.agent.workspace import Workspace, printable
from neocode_tui.chat import Image, ToolSpec

ToolKind = Literal["read", "edit", "command"]
Confinement = Literal["none", "sandboxed", "escape"]
"""Where a call runs: as the user (``none``), inside the sandbox, or a sandboxed tool
asked to leave it for this call (``escape``)."""
ArgsT = TypeVar("ArgsT", bound=BaseModel)
OutputCallback = Callable[[str], None]
"""Receives a running tool's output as it arrives (decoded text, in arrival order)."""


TIME_LIMIT = 30.0
"""Seconds a file tool may work before it stops with a message."""
STOP_GRACE = 1.0
"""Seconds a stopped file tool has to notice before its result is given up on."""
RESULT_CAP = 120_000
"""Characters of a file tool's result (and of a diff) kept; the rest is counted."""


class ToolError(Exception):
    """A failure the model should read and act on: the message becomes the tool result."""


class _Stopped(Exception):
    """Raised inside a file tool's thread once its call was cancelled."""


class Deadline:
    """How long a file tool's thread may go on. Its loops call ``check`` often: a thread
    cannot be stopped from outside, so it stops itself when cancelled or out of time."""

    def __init__(self, seconds: float = TIME_LIMIT) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self._stopped = threading.Event()

    def stop(self) -> None:
        self._stopped.set()

    def check(self) -> None:
        if self._stopped.is_set():
            raise _Stopped
        if time.monotonic() > self.deadline:
            raise ToolError(
                f"stopped after {self.seconds:g}s, the time limit for this tool; "
                "narrow the request (a smaller folder or a more specific pattern)"
            )


@dataclass(frozen=True)
class ToolOutput:
    text: str
    """Exactly what the model is sent."""
    diff: str | None = None
    is_error: bool = False
    change: FileChange | None = None
    final: str | None = None
    """Set: the run ends once this message's calls have run, with this as its answer (a
    plan handed to a user who is not there to decide)."""
    images: tuple[Image, ...] = ()
    """Sent with the text (as the next user content where a dialect's tool results
    carry no images)."""
    job: str = ""
    """The id of the background command the call went on as, if it did."""


@dataclass(frozen=True)
class Preview:
    """What a call would do, shown before asking: the diff, and the whole change."""

    diff: str
    change: FileChange | None = None


class Tool(ABC, Generic[ArgsT]):
    name: str
    description: str
    kind: ToolKind
    args_model: type[ArgsT]
    concurrent = False
    """Calls of this tool next to each other in one message run at the same time (bounded)."""

    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name,
            description=self.description,
            parameters=_without_titles(self.args_model.model_json_schema()),
        )

    @abstractmethod
    def summary(self, args: Mapping[str, Any]) -> str:
        """One line for the screen, tolerant of missing keys (arguments may be partial)."""

    def writes(self, args: ArgsT, workspace: Workspace) -> list[Path]:
        """The resolved paths this call would change (approval looks at them)."""
        return []

    def named_writes(self, args: ArgsT) -> list[str]:
        """The paths this call writes as its arguments name them, before any symlink is
        followed: a protected name on the way to a write asks as the write itself would."""
        return []

    def touches(self, args: ArgsT, workspace: Workspace) -> list[Path]:
        """The resolved paths this call reads or changes (a folder's instructions join
        the context with the first one under it)."""
        return self.writes(args, workspace)

    def session_scope(self, args: ArgsT) -> str:
        """What a "yes for this session" to this call allows from then on: by default the
        tool, whatever its arguments."""
        return self.name

    def command(self, args: ArgsT) -> str | None:
        """The shell command to show in full when asking for approval, if any."""
        return None

    def confinement(self, args: ArgsT) -> Confinement:
        """Whether this call runs inside the sandbox (approval looks at it)."""
        return "none"

    async def preview(self, args: ArgsT, workspace: Workspace) -> Preview | None:
        """What a run would change, computed before asking; ``ToolError`` if it would fail."""
        return None

    @abstractmethod
    async def run(
        self, args: ArgsT, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput: ...


class FileTool(Tool[ArgsT]):
    """A tool whose work is plain file IO, done in a thread so a large file never stalls
    the event loop (and the screen with it). It is quick: no live output."""

    time_limit = TIME_LIMIT

    @abstractmethod
    def run_sync(self, args: ArgsT, workspace: Workspace, deadline: Deadline) -> ToolOutput: ...

    async def run(
        self, args: ArgsT, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput:
        return capped(await in_thread(self.run_sync, args, workspace, limit=self.time_limit))


R = TypeVar("R")


async def in_thread(
    work: Callable[[Any, Workspace, Deadline], R], args: Any, workspace: Workspace,
    *, limit: float = TIME_LIMIT,
) -> R:
    """``work`` in a thread with a ``Deadline``: cancelled or out of time, the thread is told
    to stop and given ``STOP_GRACE`` to do so, so a call always ends when it should."""
    deadline = Deadline(limit)
    future = asyncio.ensure_future(asyncio.to_thread(work, args, workspace, deadline))
    future.add_done_callback(_retrieve)
    try:
        done, _ = await asyncio.wait({future}, timeout=limit + STOP_GRACE)
    except asyncio.CancelledError:
        deadline.stop()
        await asyncio.wait({future}, timeout=STOP_GRACE)
        raise
    if not done:
        deadline.stop()
        raise ToolError(f"stopped after {limit:g}s, the time limit for this tool")
    return future.result()


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Marks the outcome of a thread nobody waits for any more as seen."""
    if not future.cancelled():
        future.exception()


def capped(output: ToolOutput) -> ToolOutput:
    """``output`` safe to send and show: escaped where not UTF-8, and cut to size."""
    diff = None if output.diff is None else cap_text(output.diff, RESULT_CAP)
    return replace(output, text=cap_text(output.text, RESULT_CAP), diff=diff)


def cap_text(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters at a line boundary, with a note of how
    many lines and characters were left out. A key never spans lines, so a cut between
    lines leaves no part of one behind."""
    text = printable(text)
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    if cut < limit // 2:
        cut = limit  # one huge line: cut inside it rather than drop almost everything
    rest = text[cut:].removeprefix("\n")
    lines = rest.count("\n") + 1
    return (
        f"{text[:cut]}\n[… {lines} more line{'s' if lines != 1 else ''} "
        f"({len(rest)} characters) not shown]"
    )


def _without_titles(schema: Any) -> Any:
    """Pydantic's generated ``title`` strings cost tokens and tell the model nothing."""
    if isinstance(schema, dict):
        return {
            key: _without_titles(value)
            for key, value in schema.items()
            if not (key == "title" and isinstance(value, str))
        }
    if isinstance(schema, list):
        return [_without_titles(item) for item in schema]
    return schema
