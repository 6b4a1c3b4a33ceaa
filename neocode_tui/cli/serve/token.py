"""The token of ``neocode serve``: random unless the user sets one, and kept off every command line.

The user sets it in ``NEOCODE_SERVE_TOKEN``, never in a flag, because any user of the machine
can read any process's arguments (``/proc/*/cmdline``), while a process's environment is its
owner's. The server takes it out of its environment before it starts anything, so the apps it
serves never get it. The URL with the token is written for the user to find again in a file
only they can read, removed when the server stops.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from neocode_tui.errors import SettingsError
from neocode_tui.paths import data_dir

TOKEN_VARIABLE = "NEOCODE_SERVE_TOKEN"
MIN_LENGTH = 16


def take_token() -> str:
    """The token to require: ``NEOCODE_SERVE_TOKEN`` (removed from the environment), else a
    random one."""
    chosen = os.environ.pop(TOKEN_VARIABLE, None)
    if chosen is None:
        return secrets.token_urlsafe(32)
    if len(chosen) < MIN_LENGTH:
        raise SettingsError([
            f"{TOKEN_VARIABLE} must be at least {MIN_LENGTH} characters: whoever guesses it can "
            "run commands as you (leave it unset for a random one)"
        ])
    return chosen


def url_file(port: int) -> Path:
    return data_dir() / "serve" / f"{port}.url"


def remove_if_ours(path: Path, text: str) -> None:
    """Remove ``path`` unless another server has written its own URL there since."""
    try:
        if path.read_text() == text:
            path.unlink()
    except OSError:
        pass
