"""Who must say yes before a tool runs: the approval mode and per-session allowances."""

from __future__ import annotations

from neocode_tui.agent.tools import ToolKind
from neocode_tui.vocabulary import ApprovalMode


def needs_approval(kind: ToolKind, mode: ApprovalMode) -> bool:
    """Reads never ask; ``auto-edit`` asks for commands only; ``full-auto`` asks for nothing."""
    if kind == "read" or mode == "full-auto":
        return False
    return mode == "ask" or kind == "command"


def refusal_without_approver(name: str) -> str:
    """The result a headless run sends when nobody is there to ask."""
    option = "auto-edit or full-auto" if name != "bash" else "full-auto"
    return (
        f"not run: {name} needs approval and nobody can approve it in this run "
        f"(rerun with --approval {option})"
    )
