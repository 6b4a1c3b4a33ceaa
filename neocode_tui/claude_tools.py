"""Claude Code's tools as NeoCode's, and back: their names and their arguments, one table.

Programs and files written for Claude Code name its tools: a hook is sent ``Bash`` with
``command`` and ``Read`` with an absolute ``file_path``, and may answer with an
``updatedInput`` in the same words; a permission rule or an agent file says ``Edit`` or
``WebFetch``. Each row here is one NeoCode tool beside its Claude Code twin, with the
arguments whose names differ; an argument with no twin keeps its name. An MCP tool is
``mcp__server__tool`` on both sides.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Twin:
    claude: str
    ours: str
    renamed: Mapping[str, str] = field(default_factory=dict)
    """Our argument's name to Claude Code's, where they differ."""
    paths: frozenset[str] = frozenset()
    """Our arguments that name a file or folder: Claude Code's are absolute."""
    seconds: frozenset[str] = frozenset()
    """Our arguments in seconds that Claude Code gives in milliseconds."""

    def claude_input(self, arguments: Mapping[str, Any], root: Path) -> dict[str, Any]:
        """``arguments`` (ours) in Claude Code's words; a path is made absolute and
        symlink-free from ``root``, so a guard sees the file that would be touched."""
        translated: dict[str, Any] = {}
        for name, value in arguments.items():
            if name in self.paths and isinstance(value, str) and value:
                value = os.path.realpath(root / Path(value).expanduser())
            elif name in self.seconds and isinstance(value, int | float) and not isinstance(value, bool):
                value = round(value * 1000)
            translated[self.renamed.get(name, name)] = value
        return translated

    def our_input(self, arguments: Mapping[str, Any], root: Path) -> dict[str, Any]:
        """Claude Code's ``arguments`` in our words (a hook's ``updatedInput``); an absolute
        path inside ``root`` becomes relative to it, as our tools show paths."""
        back = {claude: ours for ours, claude in self.renamed.items()}
        translated: dict[str, Any] = {}
        for name, value in arguments.items():
            ours = back.get(name, name)
            if ours in self.paths and isinstance(value, str) and os.path.isabs(value):
                inside = Path(value)
                value = inside.relative_to(root).as_posix() if inside.is_relative_to(root) else value
                value = value or "."
            elif ours in self.seconds and isinstance(value, int | float) and not isinstance(value, bool):
                value = max(1, math.ceil(value / 1000))
            translated[ours] = value
        return translated


_FILE = {"path": "file_path"}
_PATH = frozenset({"path"})
TWINS: tuple[Twin, ...] = (
    Twin("Bash", "bash", {"unsandboxed": "dangerouslyDisableSandbox"}, seconds=frozenset({"timeout"})),
    Twin("Read", "read_file", _FILE, _PATH),
    Twin("Write", "write_file", _FILE, _PATH),
    Twin("Edit", "edit_file", _FILE, _PATH),
    Twin("LS", "list_dir", paths=_PATH),
    Twin("Glob", "glob", paths=_PATH),
    Twin("Grep", "grep", {"include": "glob", "ignore_case": "-i"}, _PATH),
    Twin("WebFetch", "web_fetch"),
    Twin("TodoWrite", "todo_write"),
    Twin("Task", "task", {"agent": "subagent_type"}),
    Twin("BashOutput", "bash_output", {"id": "bash_id"}),
    Twin("KillShell", "kill_bash", {"id": "shell_id"}),
    Twin("Skill", "skill", {"name": "skill"}),
    Twin("ExitPlanMode", "exit_plan_mode"),
    Twin("AskUserQuestion", "ask_user"),
    Twin("ListMcpResourcesTool", "list_mcp_resources"),
    Twin("ReadMcpResourceTool", "read_mcp_resource"),
)
OTHER_NAMES = {"MultiEdit": "edit_file", "TaskOutput": "bash_output", "KillBash": "kill_bash",
               "TaskStop": "kill_bash", "Agent": "task"}
"""Claude Code's other names for the same tools: older versions', and ``MultiEdit``, whose
edits ``edit_file`` makes one call at a time."""
_BY_OURS = {twin.ours: twin for twin in TWINS}
_BY_CLAUDE = {twin.claude.lower(): twin.ours for twin in TWINS} | {
    name.lower(): ours for name, ours in OTHER_NAMES.items()}


def twin_of(ours: str) -> Twin | None:
    """The row of our tool ``ours``; None for a tool Claude Code has no twin of (an MCP
    tool is its own)."""
    return _BY_OURS.get(ours)


def claude_name(ours: str) -> str:
    """How Claude Code names our tool ``ours`` (an MCP tool, or one with no twin, as is)."""
    twin = _BY_OURS.get(ours)
    return twin.claude if twin else ours


def our_name(claude: str) -> str | None:
    """Our tool for Claude Code's name (any case), None when it names none of ours."""
    return _BY_CLAUDE.get(claude.lower())
