"""The errors the core raises for a person to read, as one small hierarchy.

Front ends catch ``NeoCodeError`` and show its message (the CLI exits with ``exit_code``);
anything else that escapes is a bug. Failures of a model request are not exceptions but
``error`` events (``neocode_tui.events.StreamError``), because the stream carries them.
"""

from __future__ import annotations


class NeoCodeError(Exception):
    """Something the user can act on; the message says what and how."""

    exit_code = 1


class SettingsError(NeoCodeError):
    """Bad flags, environment or settings files: every problem found, not just the first."""

    exit_code = 2

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


class SessionNotFound(NeoCodeError, LookupError):
    """No saved session matches what was asked for (bad usage, like a bad flag)."""

    exit_code = 2


class SessionBusy(NeoCodeError):
    """The session is open for writing in another neocode process."""


class WorkInProgress(NeoCodeError):
    """A prompt or compaction is running; the request must wait or cancel it first."""
