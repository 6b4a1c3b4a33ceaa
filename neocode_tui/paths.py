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
