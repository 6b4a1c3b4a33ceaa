"""``neocode --worktree [NAME]``: the session runs in a new git worktree of the project and,
once it ends, the worktree is removed if nothing changed in it, or kept and said where."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path

from neocode_tui.errors import NeoCodeError
from neocode_tui.terminal_text import for_stream


def in_worktree(name: str, run: Callable[[], int], interactive: Callable[[], bool]) -> int:
    """``run`` (a front end, which works in the current folder) inside a new worktree named
    ``name`` ("" for a generated name). A worktree left with changes is kept, or removed when
    the user says so once the app has quit (``interactive``: it was the app, in a terminal)."""
    from neocode_tui.agent.worktrees import finish, make_worktree

    home = Path.cwd()
    try:
        tree = asyncio.run(make_worktree(home, name or None))
    except NeoCodeError as exc:
        _say(f"neocode: {exc}")
        return exc.exit_code
    _say(f"neocode: working in worktree {tree.name} at {tree.path} (branch {tree.branch})")
    os.chdir(tree.path)
    try:
        return run()
    finally:
        os.chdir(home)
        _say(f"neocode: {asyncio.run(finish(tree, _ask_keep if interactive() else None))}")


def _ask_keep(changed: str) -> bool:
    """The user's word on a changed worktree, in the terminal the app has left: Enter keeps it."""
    try:
        answer = input(for_stream(f"neocode: the worktree holds {changed}. Keep it? [Y/n] ", sys.stderr))
    except (EOFError, KeyboardInterrupt):
        return True
    return answer.strip().lower() not in ("n", "no")


def _say(line: str) -> None:
    print(for_stream(line, sys.stderr), file=sys.stderr, flush=True)
