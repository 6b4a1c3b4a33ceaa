"""The built-in slash commands, defined once for every front end, and the reports they give."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.commands.export import conversation_markdown
    from neocode_tui.agent.commands.outcomes import Confirm, Outcome, PickSession, Report, ShowDiff, ShowJobs
    from neocode_tui.agent.commands.table import (
        COMMANDS,
        TextOutcome,
        as_text,
        parse_command,
        respond,
        run_as_text,
        run_command,
    )

__all__ = [
    "COMMANDS",
    "Confirm",
    "Outcome",
    "PickSession",
    "Report",
    "ShowDiff",
    "ShowJobs",
    "TextOutcome",
    "as_text",
    "conversation_markdown",
    "parse_command",
    "respond",
    "run_as_text",
    "run_command",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "export": ("conversation_markdown",),
        "outcomes": ("Confirm", "Outcome", "PickSession", "Report", "ShowDiff", "ShowJobs"),
        "table": (
            "COMMANDS",
            "TextOutcome",
            "as_text",
            "parse_command",
            "respond",
            "run_as_text",
            "run_command",
        ),
    })
