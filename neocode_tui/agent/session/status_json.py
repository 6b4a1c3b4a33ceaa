"""What a status-line command reads on stdin: Claude Code's status-line JSON, from the session.

The fields and their names are Claude Code's, so its users' scripts run unchanged. A figure
NeoCode does not know (lines added, the API's own time) is left out rather than made up:
Claude Code's scripts guard optional fields (``// empty``, ``.get``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from neocode_tui import __version__
from neocode_tui.vocabulary import PERMISSION_MODES

if TYPE_CHECKING:
    from neocode_tui.agent.context import ContextFigure
    from neocode_tui.agent.session.agent_session import AgentSession
    from neocode_tui.events import Usage

LARGE_CONTEXT = 200_000
"""Claude Code's ``exceeds_200k_tokens``: the size above which long-context prices apply."""


def status_data(session: AgentSession, *, elapsed: float, vim_mode: str | None = None) -> dict[str, Any]:
    """The JSON for one run of the command; ``elapsed``: seconds since the session started."""
    store = session.file.store
    workspace = str(session.workspace)
    cost, figure = session.meter.cost, session.meter.context
    data: dict[str, Any] = {
        "hook_event_name": "Status",
        "session_id": session.id or "",
        "transcript_path": str(store.path) if store is not None else "",
        "cwd": workspace,
        "model": {"id": session.model, "display_name": session.model},
        "workspace": {"current_dir": workspace, "project_dir": workspace},
        "version": __version__,
        "output_style": {"name": "default"},
        "permission_mode": PERMISSION_MODES[session.approval],
        "cost": {"total_cost_usd": float(cost) if cost is not None else 0.0,
                 "total_duration_ms": round(elapsed * 1000)},
        "context_window": _context(session, figure),
        "exceeds_200k_tokens": figure.tokens > LARGE_CONTEXT,
    }
    if limits := session.rate_limits.status_json():
        data["rate_limits"] = limits
    if vim_mode:
        data["vim"] = {"mode": vim_mode}
    return data


def _context(session: AgentSession, figure: ContextFigure) -> dict[str, Any]:
    usage = session.usage
    window: dict[str, Any] = {
        "total_input_tokens": usage.input_tokens or 0,
        "total_output_tokens": usage.output_tokens or 0,
        "context_window_size": figure.window,
    }
    if figure.fraction is not None:
        used = min(round(figure.fraction * 100), 100)
        window |= {"used_percentage": used, "remaining_percentage": 100 - used}
    last = session.meter.last_usage
    if last is not None:
        window["current_usage"] = _current(last)
    return window


def _current(usage: Usage) -> dict[str, int]:
    """The last request's tokens, split as Anthropic reports them: ``input_tokens`` is what
    was neither read from nor written to the cache."""
    read, written = usage.cached_input_tokens or 0, usage.cache_creation_input_tokens or 0
    return {
        "input_tokens": max((usage.input_tokens or 0) - read - written, 0),
        "output_tokens": usage.output_tokens or 0,
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": read,
    }
