"""What a slash command gives back for a front end to present, never drawn by the command:
a report, a diff, a question with its preview, a list to pick from. A leaf, so a command's
own module can return one without importing the table."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from neocode_tui.vocabulary import NoticeLevel

if TYPE_CHECKING:
    from neocode_tui.agent.processes import BackgroundJobs
    from neocode_tui.agent.restore import Checkpoint, UndoPreview
    from neocode_tui.agent.store import SessionInfo


@dataclass(frozen=True)
class Report:
    """Text to show; ``prefill`` goes into the input, to edit and send (a rewound prompt)."""

    text: str
    level: NoticeLevel = "info"
    prefill: str = ""
    edit: Path | None = None
    """A file to open in the user's editor: the app suspends and runs it; text front ends
    show the text, which names the file."""


@dataclass(frozen=True)
class ShowDiff:
    """A diff to read: the app opens it in a scrollable screen, text front ends print it."""

    title: str
    diff: str


@dataclass(frozen=True)
class ShowJobs:
    """The background commands: the app opens their live view (output as it comes, a key
    to stop one), text front ends print their listing."""

    jobs: BackgroundJobs


@dataclass(frozen=True)
class Choice:
    id: str
    label: str


Answer = Callable[[str | None], Awaitable["Outcome"]]
"""Acts on the id of the choice the user took (None: they cancelled)."""


@dataclass(frozen=True)
class Confirm:
    """What would be written back, and the question asked before it is."""

    kind: Literal["undo", "rewind"]
    question: str
    preview: UndoPreview
    choices: tuple[Choice, ...]
    answer: Answer

    @property
    def command(self) -> str:
        return self.kind


@dataclass(frozen=True)
class PickSession:
    """This folder's saved sessions to pick one from (``/resume ID`` picks by id)."""

    sessions: list[SessionInfo]
    answer: Answer
    command = "resume"


@dataclass(frozen=True)
class PickPrompt:
    """The conversation's prompts to go back before (``/rewind N`` picks by number)."""

    points: list[Checkpoint]
    git_status: str | None
    answer: Answer
    command = "rewind"


Outcome = Report | ShowDiff | ShowJobs | Confirm | PickSession | PickPrompt
