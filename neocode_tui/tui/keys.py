"""The keys the conversation's hints name, and the modes Shift+Tab steps through. Which key
does what, and the user's own keys, are ``tui/keymap``'s."""

from __future__ import annotations

from neocode_tui.vocabulary import ApprovalMode

FOLD_KEY = "Ctrl+T"
"""The key that folds the latest tool output or thinking: the fold hints name it."""
FOLD_HINT = f"{FOLD_KEY} or click"
BACKGROUND_KEY = "Ctrl+B"
"""Sends the running command to the background: a running command's panel names it."""

MODE_CYCLE: tuple[ApprovalMode, ...] = ("ask", "auto-edit", "plan")
"""What Shift+Tab steps through. ``full-auto`` is never one key away: choose it with
``/approval full-auto`` or ``--approval``."""


def next_mode(mode: ApprovalMode) -> ApprovalMode:
    if mode not in MODE_CYCLE:
        return MODE_CYCLE[0]
    return MODE_CYCLE[(MODE_CYCLE.index(mode) + 1) % len(MODE_CYCLE)]
