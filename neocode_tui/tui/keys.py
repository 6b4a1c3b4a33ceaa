"""Every key the app answers to, in one table: the help overlay and ``/help`` read it, so
what is listed is what is bound."""

from __future__ import annotations

from neocode_tui.vocabulary import ApprovalMode

FOLD_KEY = "Ctrl+T"
"""The key that folds the latest tool output or thinking: the fold hints name it."""
FOLD_HINT = f"{FOLD_KEY} or click"
BACKGROUND_KEY = "Ctrl+B"
"""Sends the running command to the background: a running command's panel names it."""
JOBS_KEY = "F2"
"""Opens the background commands' live view: the status bar names it while one runs."""

KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "send; while the agent works, queue the message for when it is done"),
    ("Alt+Enter  Ctrl+J", "new line (or end the line with \\ and press Enter)"),
    ("Shift+Enter", "new line too, where the terminal tells it from Enter (not tmux)"),
    ("Up / Down", "walk the history, earlier runs' prompts too"),
    ("Ctrl+R", "search the history (again: older; Esc cancels)"),
    ("Up on an empty prompt", "take the last queued message back to edit or drop it"),
    ("Esc", "interrupt the running turn (or close this help, a list, a dialog)"),
    ("Ctrl+C", "clear the input; on an empty one, interrupt the turn; twice when idle: quit"),
    ("Shift+Tab", "cycle the mode: ask, auto-edit, plan"),
    (FOLD_KEY, "fold or unfold the latest tool output or thinking"),
    ("Ctrl+O", "transcript: unfold everything, or fold it back"),
    (f"{BACKGROUND_KEY}  /  {JOBS_KEY}", "send the running command to the background / see them live (/ps)"),
    ("PageUp / PageDown", "scroll the conversation"),
    ("End", "jump to the latest (on an empty prompt)"),
    ("Ctrl+P", "command palette"),
    ("F1  or  ? on an empty prompt", "this list"),
    ("/", "slash commands, completed as you type (Tab fills in, Enter runs)"),
    ("@", "point at a file or folder: a fuzzy picker; its content goes with the prompt"),
)

MODE_CYCLE: tuple[ApprovalMode, ...] = ("ask", "auto-edit", "plan")
"""What Shift+Tab steps through. ``full-auto`` is never one key away: choose it with
``/approval full-auto`` or ``--approval``."""


def next_mode(mode: ApprovalMode) -> ApprovalMode:
    if mode not in MODE_CYCLE:
        return MODE_CYCLE[0]
    return MODE_CYCLE[(MODE_CYCLE.index(mode) + 1) % len(MODE_CYCLE)]
