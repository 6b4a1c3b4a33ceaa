"""Processes the agent starts: commands in the background, and ending every process a command
started."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.processes.background import (
        PS_LINES,
        BackgroundJobs,
        Job,
        JobNotFound,
        TooManyJobs,
        seconds,
        stopped_words,
    )
    from neocode_tui.agent.processes.status_command import StatusOutput, run_status_command
    from neocode_tui.agent.processes.tree import ProcessTree, in_child

__all__ = [
    "BackgroundJobs",
    "Job",
    "JobNotFound",
    "PS_LINES",
    "ProcessTree",
    "StatusOutput",
    "TooManyJobs",
    "in_child",
    "run_status_command",
    "seconds",
    "stopped_words",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "background": ("BackgroundJobs", "Job", "JobNotFound", "PS_LINES", "TooManyJobs", "seconds", "stopped_words",),
        "status_command": ("StatusOutput", "run_status_command",),
        "tree": ("ProcessTree", "in_child",),
    })
