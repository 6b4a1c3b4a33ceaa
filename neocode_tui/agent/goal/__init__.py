"""Keeping at a goal: the condition, the judge asked after each turn, and the pursuit that
sends the agent on until the judge finds it holds or a limit stops it."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.goal.judge import Verdict, ask_judge, verdict_of
    from neocode_tui.agent.goal.pursuit import CLEAR_WORDS, MAX_CONDITION, BadGoal, Goal, Limits, Pursuit

__all__ = ["BadGoal", "CLEAR_WORDS", "Goal", "Limits", "MAX_CONDITION", "Pursuit", "Verdict", "ask_judge", "verdict_of"]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "judge": ("Verdict", "ask_judge", "verdict_of"),
        "pursuit": ("BadGoal", "CLEAR_WORDS", "Goal", "Limits", "MAX_CONDITION", "Pursuit"),
    })
