"""Reading the JSON settings files users write (``.mcp.json``, ``hooks.json``): a missing file
is no file, and any other failure is one line naming the file (and the line, for bad JSON)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple


class Missing:
    """The file does not exist: nothing configured, nothing to report."""


MISSING = Missing()


class JsonRead(NamedTuple):
    data: Any
    """The parsed content, ``MISSING`` when there is no file, None when it is unusable."""
    problem: str | None
    raw: bytes | None
    """The bytes that were parsed (what a trust check must look at: what is used)."""


def read_json(path: Path) -> JsonRead:
    """``(data, None, raw)``, ``(MISSING, None, None)`` when there is no file, or
    ``(None, problem, raw)``."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return JsonRead(MISSING, None, None)
    except OSError as exc:
        return JsonRead(None, f"{path}: cannot be read ({exc})", None)
    try:
        return JsonRead(json.loads(raw.decode("utf-8")), None, raw)
    except UnicodeDecodeError as exc:
        return JsonRead(None, f"{path}: cannot be read ({exc})", raw)
    except json.JSONDecodeError as exc:
        return JsonRead(
            None, f"{path} line {exc.lineno}, column {exc.colno}: not valid JSON ({exc.msg})", raw
        )


def json_records(handle: IO[bytes], limit: int) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """Each non-blank line of a JSON Lines file with its number: the object, or None for a
    line that is none (not JSON, not an object, or longer than ``limit`` bytes, which is
    skipped without being held whole)."""
    number = 0
    while line := handle.readline(limit + 1):
        number += 1
        if len(line) > limit and not line.endswith(b"\n"):
            while (rest := handle.readline(limit)) and not rest.endswith(b"\n"):
                pass
            yield number, None
            continue
        if not line.strip():
            continue
        try:
            record = json.loads(line.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            record = None
        yield number, record if isinstance(record, dict) else None
