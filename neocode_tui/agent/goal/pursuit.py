"""Keeping at a goal (``/goal CONDITION``): after each turn the judge is asked whether the
condition holds; until it does, the agent is sent on with the judge's reason, turn after
turn, unless a limit stops it (``goal_max_turns``, ``goal_max_minutes``, the budget, Esc).

One goal at a time; a new one replaces it, ``/goal clear`` and ``/clear`` drop it. The
session asks ``after`` at the end of each prompt's run and runs what it returns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from neocode_tui.agent.goal.evidence import evidence_of
from neocode_tui.agent.goal.judge import Verdict
from neocode_tui.agent.loop_events import GoalChanged, GoalState, LoopEvent, RunFinished
from neocode_tui.chat import Message
from neocode_tui.errors import NeoCodeError
from neocode_tui.events import ErrorInfo
from neocode_tui.vocabulary import NoticeLevel

MAX_CONDITION = 4_000
"""Characters of a condition (Claude Code's limit too)."""
CLEAR_WORDS = frozenset({"clear", "stop", "off", "reset", "none", "cancel"})

Judge = Callable[[str, str], Coroutine[Any, Any, "Verdict | ErrorInfo"]]
"""Judges a condition (first) on the evidence (second)."""


class BadGoal(NeoCodeError):
    """A condition that cannot be a goal (empty, too long): said to the user as it is."""

    exit_code = 2  # bad usage, where a command line gave it


class PursuitHost(Protocol):
    """The session whose goal it is."""

    @property
    def turn(self) -> int: ...

    @property
    def messages(self) -> list[Message]: ...

    def emit(self, event: LoopEvent) -> None: ...

    def notice(self, level: NoticeLevel, message: str) -> None: ...

    @property
    def stop_key(self) -> str:
        """The key that stops a run, as the user's front end names it ("Esc")."""
        ...


@dataclass
class Goal:
    condition: str
    started: float
    turns: int = 0
    reason: str = ""
    """The judge's latest word, or why the goal stopped."""
    state: GoalState = "active"


@dataclass(frozen=True)
class Limits:
    turns: int
    minutes: float


class Pursuit:
    def __init__(self, host: PursuitHost, judge: Judge, limits: Callable[[], Limits],
                 clock: Callable[[], float]) -> None:
        """``limits``: read at each turn's end (a setting changed meanwhile counts)."""
        self._host, self._judge, self._limits, self._clock = host, judge, limits, clock
        self.goal: Goal | None = None
        """The goal, active or the last one (``/goal`` tells how it ended)."""
        self._from = 0
        self._judging: asyncio.Task[Verdict | ErrorInfo] | None = None
        self._stopped = False

    @property
    def active(self) -> Goal | None:
        goal = self.goal
        return goal if goal is not None and goal.state == "active" else None

    @property
    def judging(self) -> bool:
        return self._judging is not None and not self._judging.done()

    def set(self, condition: str) -> Goal:
        """The goal from now on (replacing any); the condition is also the first turn's work."""
        condition = condition.strip()
        if not condition:
            raise BadGoal("/goal takes a condition: what must hold for the work to be done")
        if len(condition) > MAX_CONDITION:
            raise BadGoal(f"the condition is {len(condition):,} characters; at most {MAX_CONDITION:,} are kept")
        self.goal = Goal(condition, self._clock())
        self._host.notice("info", f"goal set: {condition} · the agent works until a judge finds it holds "
                          f"(/goal shows it, /goal clear drops it, {self._host.stop_key} stops)")
        self._changed(self.goal)
        return self.goal

    def clear(self) -> Goal | None:
        """Drop the active goal; returns it (None when there was none)."""
        goal = self.active
        if goal is not None:
            goal.state, goal.reason = "cleared", "cleared by the user"
            self._changed(goal)
        return goal

    def turn_starts(self) -> None:
        """A prompt's run begins: the evidence is what follows."""
        self._from = len(self._host.messages)

    def cancel(self) -> bool:
        """Esc while the judge is asked: the goal stops there."""
        if not self.judging:
            return False
        assert self._judging is not None
        self._stopped = True
        self._judging.cancel()
        return True

    async def after(self, finished: RunFinished) -> str | None:
        """The next turn's prompt when the goal is still to be reached, else None (no goal,
        met, or stopped: the user is told which)."""
        goal = self.active
        if goal is None:
            return None
        goal.turns += 1
        if finished.reason == "cancelled":
            self._stop(goal, f"interrupted ({self._host.stop_key})")
            return None
        if finished.reason == "error":
            self._stop(goal, f"the turn ended in an error: {finished.error.message if finished.error else ''}")
            return None
        verdict = await self._judged(goal, self._host.messages[self._from:])
        if verdict is None:
            self._stop(goal, f"interrupted ({self._host.stop_key})")
            return None
        if isinstance(verdict, ErrorInfo):
            self._stop(goal, f"the judge could not be asked: {verdict.message}")
            return None
        goal.reason = verdict.reason
        if verdict.met:
            goal.state = "met"
            self._host.notice("info", f"goal met after {_turns(goal.turns)}: {verdict.reason}")
            self._changed(goal)
            return None
        limit = self._limit_reached(goal)
        if limit:
            self._stop(goal, limit)
            return None
        self._host.notice("info", f"goal not met yet after {_turns(goal.turns)}: {verdict.reason} · working on")
        self._changed(goal)
        return continuation(goal)

    async def _judged(self, goal: Goal, messages: Sequence[Message]) -> Verdict | ErrorInfo | None:
        """The judge's verdict; None when Esc stopped it."""
        self._stopped = False
        self._judging = asyncio.create_task(self._judge(goal.condition, evidence_of(messages)))
        try:
            return await self._judging
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if self._stopped and not (task is not None and task.cancelling()):
                return None
            raise
        finally:
            self._judging = None

    def _limit_reached(self, goal: Goal) -> str:
        limits = self._limits()
        if goal.turns >= limits.turns:
            return f"{_turns(goal.turns)}, the limit (goal_max_turns = {limits.turns})"
        minutes = (self._clock() - goal.started) / 60
        if minutes >= limits.minutes:
            return f"{minutes:.0f} minutes, the limit (goal_max_minutes = {limits.minutes:g})"
        return ""

    def _stop(self, goal: Goal, why: str) -> None:
        goal.state, goal.reason = "stopped", why
        self._host.notice("warning", f"goal stopped after {_turns(goal.turns)}: {why}")
        self._changed(goal)

    def _changed(self, goal: Goal) -> None:
        self._host.emit(GoalChanged(turn=self._host.turn, condition=goal.condition, state=goal.state,
                                    turns=goal.turns, reason=goal.reason))

    def words(self) -> str:
        """What ``/goal`` alone says."""
        goal = self.goal
        if goal is None:
            return ("no goal; /goal CONDITION sets one: the agent works turn after turn until a "
                    "judge finds the condition holds (/goal clear drops it)")
        minutes = (self._clock() - goal.started) / 60
        judged = f" · last judged: {goal.reason}" if goal.reason else ""
        if goal.state == "active":
            return f"goal: {goal.condition}\n{_turns(goal.turns)} so far, {minutes:.0f} min{judged}"
        ended = {"met": "was met", "stopped": "stopped", "cleared": "was cleared"}[goal.state]
        return f"no active goal; the last one {ended} after {_turns(goal.turns)}: {goal.condition}{judged}"


def continuation(goal: Goal) -> str:
    """What the agent is sent for the goal's next turn."""
    return (f"[NeoCode: the goal is not met yet] {goal.reason}\n"
            f"Keep working until this holds: {goal.condition}\n"
            "Show the evidence as you go (run the checks and let their output show the result).")


def _turns(count: int) -> str:
    return f"{count} turn{'s' * (count != 1)}"
