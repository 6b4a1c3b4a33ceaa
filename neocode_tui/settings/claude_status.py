"""Claude Code's ``statusLine`` as NeoCode's ``status_line``, from Claude Code's settings.

``{"statusLine": {"type": "command", "command": "~/.claude/statusline.sh", "padding": 0}}`` in
``~/.claude/settings.json`` is the user's; in the project's ``.claude/settings.json`` or
``.claude/settings.local.json`` (the later wins, as in Claude Code) it runs a command the
repository chose, so it counts only in a folder the user trusted, as the file was then.
Those files' other problems (bad JSON) are said by the hooks and rules that read them too.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from neocode_tui.json_files import read_json
from neocode_tui.protected_files import CLAUDE_LOCAL_SETTINGS, CLAUDE_SETTINGS
from neocode_tui.trust import NOT_TRUSTED, untrusted_reason


def claude_status_line(workspace: Path, vouched_for: bool | None, ignored: list[str]) -> tuple[dict[str, Any], str]:
    """The ``status_line`` value Claude Code's settings give, and the file it came from
    (``({}, "")`` when none does); a project's that may not count is said in ``ignored``.
    ``vouched_for``: the run's own word on trust (``--trust``), else the remembered one."""
    user_file = Path.home() / CLAUDE_SETTINGS
    command, _ = _command(user_file)
    chosen = ({"status_line": {"command": command}}, str(user_file)) if command else ({}, "")
    for name in (CLAUDE_SETTINGS, CLAUDE_LOCAL_SETTINGS):
        path = workspace / name
        command, raw = _command(path)
        if path == user_file or not command:
            continue
        if vouched_for is None:
            why = untrusted_reason(workspace, name, raw)
        else:
            why = "" if vouched_for else NOT_TRUSTED
        if why:
            ignored.append(f"statusLine in {path} was ignored: {why} (trust it when neocode asks, or pass --trust)")
            continue
        chosen = ({"status_line": {"command": command}}, str(path))
    return chosen


def _command(path: Path) -> tuple[str, bytes | None]:
    """The file's status-line command ("" none) and the bytes it was read from."""
    data, _, raw = read_json(path)
    line = data.get("statusLine") if isinstance(data, Mapping) else None
    if not isinstance(line, Mapping) or line.get("type", "command") != "command":
        return "", raw
    command = line.get("command")
    return (command.strip() if isinstance(command, str) else ""), raw
