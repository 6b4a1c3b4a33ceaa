"""The line near a ``task`` result's end: what the child spent, which the model reads and a
resumed session's panel counts again (the session file keeps no child's usage apart)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the app's panels read results before pydantic loads
    from neocode_tui.events import Usage

_SPENT = re.compile(r"^\[[a-z0-9_-]+: ([0-9,]+) input and ([0-9,]+) output tokens\]$", re.MULTILINE)


def spent_line(agent: str, usage: Usage) -> str:
    return f"[{agent}: {usage.input_tokens or 0:,} input and {usage.output_tokens or 0:,} output tokens]"


def spent_tokens(result: str) -> int:
    """The tokens, in and out, that ``result``'s last such line says the child spent (0: none;
    a kept worktree's line may follow it)."""
    found = _SPENT.findall(result)
    return sum(int(part.replace(",", "")) for part in found[-1]) if found else 0
