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
    from neocode_tui.agent.processes.tree import ProcessTree, in_child

__all__ = [
    "BackgroundJobs",
    "Job",
    "JobNotFound",
    "PS_LINES",
    "ProcessTree",
    "TooManyJobs",
    "in_child",
    "seconds",
    "stopped_words",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "background": ("BackgroundJobs", "Job", "JobNotFound", "PS_LINES", "TooManyJobs", "seconds", "stopped_words",),
        "tree": ("ProcessTree", "in_child",),
    })
