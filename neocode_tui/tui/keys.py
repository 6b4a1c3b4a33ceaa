"""The keys the conversation's hints name, and the modes Shift+Tab steps through. Which key
does what, and the user's own keys, are ``tui/keymap``'s."""

from __future__ import annotations

from dataclasses import dataclass

from neocode_tui.vocabulary import ApprovalMode


@dataclass(frozen=True)
class KeyNames:
    """The keys the screen's hints name (a fold hint, a running command's panel, the status
    bar, the welcome line): the defaults until the user's keymap says others; "" for an
    action the user left without a key."""

    fold: str = "Ctrl+T"
    background: str = "Ctrl+B"
    jobs: str = "F2"
    interrupt: str = "Esc"
    key_help: str = "F1"
    later: str = "Tab"

    @property
    def fold_hint(self) -> str:
        """"Ctrl+T or click": what folds a block."""
        return f"{self.fold} or click" if self.fold else "click"

    def press(self, name: str, words: str) -> str:
        """"Esc interrupts": a key and what it does, or "" when the action has no key."""
        key = getattr(self, name)
        return f"{key} {words}" if key else ""


MODE_CYCLE: tuple[ApprovalMode, ...] = ("ask", "auto-edit", "plan")
"""What Shift+Tab steps through. ``full-auto`` is never one key away: choose it with
``/approval full-auto`` or ``--approval``."""


def next_mode(mode: ApprovalMode) -> ApprovalMode:
    if mode not in MODE_CYCLE:
        return MODE_CYCLE[0]
    return MODE_CYCLE[(MODE_CYCLE.index(mode) + 1) % len(MODE_CYCLE)]
