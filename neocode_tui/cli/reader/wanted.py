"""Whether the plain-line front end is asked for, told before the app would draw anything:
the flag, ``NEOCODE_SCREEN_READER``, or ``screen_reader = true`` in the user's config."""

from __future__ import annotations

import argparse
import os

_TRUE = frozenset({"1", "true", "yes", "on"})


def reader_wanted(args: argparse.Namespace) -> bool:
    if getattr(args, "screen_reader", None):
        return True
    if os.environ.get("NEOCODE_SCREEN_READER", "").strip().lower() in _TRUE:
        return True
    from neocode_tui.paths import config_dir

    path = config_dir() / "config.toml"  # the settings' own file; its model loads only when it names this
    try:
        if b"screen_reader" not in path.read_bytes():
            return False
    except OSError:
        return False
    from neocode_tui.settings import read_user_file

    return read_user_file(path).values.get("screen_reader") is True
