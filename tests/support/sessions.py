"""Real agent sessions against a ``Dialect``'s loopback server, each with a ``Recorder`` for
every event it sends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from neocode_tui.agent.permissions import Approver
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.agent.session.front_end import PlanReview
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.recorder import Recorder


def recorded_session(
    dialect: Dialect, workspace: Path, settings: Settings, *, approver: Approver | None = None,
    plan_review: PlanReview | None = None, **options: Any,
) -> tuple[AgentSession, Recorder]:
    """A session with ``settings`` whose provider is ``dialect``'s, answered by ``approver``
    and ``plan_review``; ``options`` go to the session (``save``...)."""
    recorder = Recorder()
    front = FrontEnd(listener=recorder, approver=approver, plan_review=plan_review)
    session = AgentSession(settings, workspace, front, provider=dialect.provider(), **options)
    return session, recorder


def make_session(
    dialect: Dialect, workspace: Path, approval: str = "ask", **options: Any
) -> tuple[AgentSession, Recorder]:
    """A session as a user starts one: it asks before it changes anything, unless told."""
    return recorded_session(dialect, workspace, Settings(provider=dialect.name, approval=approval), **options)


def unsandboxed_session(
    dialect: Dialect, workspace: Path, approval: str = "full-auto", **options: Any
) -> tuple[AgentSession, Recorder]:
    """A session that runs every call without asking, its commands outside the sandbox."""
    settings = Settings(provider=dialect.name, approval=approval, sandbox="off")
    return recorded_session(dialect, workspace, settings, **options)
