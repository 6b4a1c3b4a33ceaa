"""Which tool call is running, for a tool that reports on the call it runs in (``task``).

Set by the loop around each tool's run; every concurrently running call is its own asyncio
task, so each sees its own.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class RunningCall:
    turn: int
    index: int
    call_id: str


CURRENT_CALL: ContextVar[RunningCall | None] = ContextVar("CURRENT_CALL", default=None)
