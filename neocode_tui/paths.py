"""Where NeoCode keeps its files: one answer for every module that reads or writes them.

``NEOCODE_CONFIG_DIR`` and ``NEOCODE_DATA_DIR`` override the platform's folders (tests,
portable installs), so nothing a test runs can touch the user's own settings or sessions.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def config_dir() -> Path:
    """Settings the app writes, user themes, the user's own ``AGENTS.md``."""
    override = os.environ.get("NEOCODE_CONFIG_DIR")
    return Path(override) if override else Path(platformdirs.user_config_dir("neocode"))


def data_dir() -> Path:
    """Saved sessions."""
    override = os.environ.get("NEOCODE_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir("neocode"))


def home_folders() -> list[Path]:
    """The user's home folders, resolved: ``HOME`` and the account's, when they differ
    (a command reads either); never ``/`` (an account without a home)."""
    candidates = [os.environ.get("HOME", ""), os.path.expanduser("~")]
    try:
        import pwd  # not on Windows

        candidates.append(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError):  # no passwd entry (a container's arbitrary uid)
        pass
    found: list[Path] = []
    for candidate in candidates:
        if not candidate:
            continue
        try:
            home = Path(candidate).resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        if home != Path("/") and home.is_dir() and home not in found:
            found.append(home)
    return found
