"""``neocode sessions``: list the saved sessions of the current folder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from neocode_tui.agent.store import list_sessions, listing_text
from neocode_tui.terminal_text import for_stream


def print_sessions(args: argparse.Namespace) -> int:
    """``neocode sessions``: this folder's sessions, newest first."""
    workspace = Path.cwd()
    sessions = list_sessions(workspace)
    if not sessions:
        print(f"no saved sessions for {workspace}")
        return 0
    for line in listing_text(sessions, limit=None):
        print(for_stream(line, sys.stdout))  # the model may have written any of it
    print("\nresume one with: neocode --resume ID   (or the latest with --continue)")
    return 0
