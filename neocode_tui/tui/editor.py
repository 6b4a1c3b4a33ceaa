"""Opening a file in the user's own editor (``$VISUAL``, ``$EDITOR``, else ``vi``).

The app steps aside while it runs: the terminal is the editor's until it exits. Where the
app cannot step aside (a browser tab, a test's headless driver) it says where the file is.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

from neocode_tui.vocabulary import NoticeLevel


def editor_command(path: Path) -> list[str]:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        words = shlex.split(editor)
    except ValueError:
        words = [editor]
    return [*(words or ["vi"]), str(path)]


def edit_in_editor(app: App[Any], path: Path, notice: Callable[[NoticeLevel, str], None]) -> None:
    """Runs while the app is suspended (it draws nothing then, so waiting is the point)."""
    command = editor_command(path)
    try:
        with app.suspend():
            code = subprocess.run(command, check=False).returncode
    except SuspendNotSupported:
        notice("warning", f"the editor cannot take this terminal here; edit {path} yourself")
        return
    except OSError as exc:
        notice("error", f"could not start {command[0]}: {exc.strerror or exc}")
        return
    if code:
        notice("warning", f"{command[0]} exited with status {code}")
