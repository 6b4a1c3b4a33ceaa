"""``/goal``: set a goal and work on it until it holds, show it, or clear it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from neocode_tui.agent.commands.outcomes import Outcome, Report
from neocode_tui.agent.goal import CLEAR_WORDS

if TYPE_CHECKING:
    from neocode_tui.agent.commands.host import CommandHost


def sets_goal(argument: str) -> bool:
    """``/goal CONDITION`` works (a long command); ``/goal`` and ``/goal clear`` only say."""
    return bool(argument.strip()) and argument.strip().lower() not in CLEAR_WORDS


async def goal(session: CommandHost, argument: str) -> Outcome:
    pursuit = session.goal
    if not argument.strip():
        return Report(pursuit.words())
    if not sets_goal(argument):
        cleared = pursuit.clear()
        if cleared is None:
            return Report("no goal to clear")
        return Report(f"goal cleared after {cleared.turns} turn{'s' * (cleared.turns != 1)}: {cleared.condition}")
    session.require_idle("/goal CONDITION")
    set_to = pursuit.set(argument)
    await session.prompt(set_to.condition)
    return Report("")  # the pursuit's notices said how it went
