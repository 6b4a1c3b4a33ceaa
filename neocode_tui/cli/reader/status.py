"""The status bar read as one line, when the user asks for it."""

from __future__ import annotations

from neocode_tui.agent.context import format_cost
from neocode_tui.agent.session import AgentSession
from neocode_tui.terminal_text import visible


def status_words(session: AgentSession) -> str:
    figure = session.meter.context
    fraction = figure.fraction
    context = (f"context {'about ' if figure.estimated else ''}{fraction:.0%} full" if fraction is not None
               else f"context {figure.tokens:,} tokens, window unknown")
    goal = session.goal.active
    parts = [f"model {visible(session.model)}", f"mode {session.approval}", context,
             f"cost {format_cost(session.meter.cost)}", f"sandbox {session.sandbox.label}"]
    if goal is not None:
        parts.append(f"goal {visible(goal.condition)}, turn {goal.turns + 1}")
    return "Status: " + ", ".join(parts) + "."
