"""``neocode config --keys``: every action of the app, its default keys, the user's and what
the app will use, then what is wrong in the user's ``[keys]`` (what the app says at start)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from neocode_tui.terminal_text import for_stream
from neocode_tui.tui.keymap import ACTIONS, KeyMap, label, load_keymap, parse_sequence


def print_keys(args: argparse.Namespace) -> int:
    """0, or 1 when the user's keys have problems (so a script can check a file it wrote)."""
    from neocode_tui.settings import config_file

    keys = load_keymap()
    report = keys_report(keys, str(config_file()))
    print(json.dumps(report, indent=2) if args.json else for_stream(keys_text(report), sys.stdout))
    return 1 if keys.problems else 0


def keys_report(keys: KeyMap, where: str) -> dict[str, Any]:
    return {
        "file": where,
        "actions": [{
            "action": action.name,
            "default": [label(parse_sequence(spec)) for spec in action.defaults],
            "yours": [label(sequence) for sequence in keys.keys[action.name]] if action.name in keys.yours else None,
            "in_use": [label(sequence) for sequence in keys.keys[action.name]],
            "meaning": action.meaning,
        } for action in ACTIONS],
        "problems": keys.problems,
        "notes": keys.notes,
    }


def keys_text(report: dict[str, Any]) -> str:
    rows = report["actions"]
    width = max(len(row["action"]) for row in rows) + 2
    default_width = max(len(_keys(row["default"])) for row in rows) + 2
    lines = [f"Keys (set yours in {report['file']}, under [keys])", "",
             f"  {'action':<{width}}{'default':<{default_width}}yours"]
    for row in rows:
        yours = "–" if row["yours"] is None else _keys(row["yours"])
        lines.append(f"  {row['action']:<{width}}{_keys(row['default']):<{default_width}}{yours}")
    if report["problems"] or report["notes"]:
        lines += ["", "In your keys:", *(f"  ✗ {problem}" for problem in report["problems"]),
                  *(f"  ℹ {note}" for note in report["notes"])]
    return "\n".join(lines)


def _keys(labels: list[str]) -> str:
    return ", ".join(labels) or "(none)"
