"""Hooks as a user writes them: a real script that logs the event it gets and answers as
told, and the hooks.json files that name it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from neocode_tui.paths import config_dir

HOOK = """\
import json, os, sys
event = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(event) + "\\n")
sys.stdout.write(os.environ.get("HOOK_STDOUT", ""))
sys.stderr.write(os.environ.get("HOOK_STDERR", ""))
sys.exit(int(os.environ.get("HOOK_EXIT", "0")))
"""


def hook(tmp_path: Path, log: str, *, code: int = 0, stdout: str = "", stderr: str = "") -> str:
    """A hook command: logs the event it gets to ``log`` and answers as told."""
    script = tmp_path / "hook.py"
    script.write_text(HOOK)
    variables = {"HOOK_EXIT": str(code), "HOOK_STDOUT": stdout, "HOOK_STDERR": stderr}
    prefix = " ".join(f"{name}={_quote(value)}" for name, value in variables.items())
    return f"{prefix} {sys.executable} {script} {tmp_path / log}"


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def write_hooks(path: Path, hooks: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}))


def user_hooks(hooks: dict[str, Any]) -> None:
    write_hooks(config_dir() / "hooks.json", hooks)


def group(command: str, matcher: str = "", timeout: float | None = None) -> list[dict[str, Any]]:
    entry: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        entry["timeout"] = timeout
    return [{"matcher": matcher, "hooks": [entry]}]


def logged(tmp_path: Path, log: str) -> list[dict[str, Any]]:
    path = tmp_path / log
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
