"""The errors the core raises for a person to read, as one small hierarchy.

Front ends catch ``NeoCodeError`` and show its message (the CLI exits with ``exit_code``);
anything else that escapes is a bug. Failures of a model request are not exceptions but
``error`` events (``neocode_tui.events.StreamError``), because the stream carries them.
"""

from __future__ import annotations


class NeoCodeError(Exception):
    """Something the user can act on; the message says what and how."""

    exit_code = 1


class NoModel(NeoCodeError):
    """Nothing but the offline model to talk to, where nobody watches the app (``-p``, ACP)."""

    def __init__(self, where: str) -> None:
        super().__init__(
            "no API key: set OPENAI_API_KEY or ANTHROPIC_API_KEY (or NEOCODE_PROVIDER and "
            f"NEOCODE_BASE_URL for a local server){where}, or run neocode login"
        )


class SettingsError(NeoCodeError):
    """Bad flags, environment or settings files: every problem found, not just the first."""

    exit_code = 2

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


class SessionError(NeoCodeError):
    """A saved session cannot be used as asked."""


class SessionNotFound(SessionError, LookupError):
    """No saved session matches what was asked for (bad usage, like a bad flag)."""

    exit_code = 2


class SessionBusy(SessionError):
    """Another live neocode process has the session open for writing."""

    def __init__(self, session_id: str, pid: int | None) -> None:
        self.session_id = session_id
        self.pid = pid
        holder = f"another neocode (pid {pid})" if pid else "another neocode"
        super().__init__(
            f"session {session_id} is open in {holder}; wait for it to finish, or start a "
            "new session"
        )


class WorkInProgress(NeoCodeError):
    """A prompt or compaction is running; the request must wait or cancel it first."""
