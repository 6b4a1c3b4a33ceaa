"""Reading the JSON settings files users write (``.mcp.json``, ``hooks.json``): a missing file
is no file, and any other failure is one line naming the file (and the line, for bad JSON)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class Missing:
    """The file does not exist: nothing configured, nothing to report."""


MISSING = Missing()


def read_json(path: Path) -> tuple[Any, str | None]:
    """``(data, None)``, ``(MISSING, None)`` when there is no file, or ``(None, problem)``."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return MISSING, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{path}: cannot be read ({exc})"
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"{path} line {exc.lineno}, column {exc.colno}: not valid JSON ({exc.msg})"
