"""Where hooks are configured, and which of them may run.

Claude Code's places are read as it reads them (``~/.claude/settings.json``,
``.claude/settings.json``, ``.claude/settings.local.json``), beside NeoCode's own
``hooks.json`` in the user's config folder and ``.neocode/hooks.json``, all in Claude Code's
shape::

    {"hooks": {"PreToolUse": [{"matcher": "Bash|Write",
                               "hooks": [{"type": "command", "command": "./check.sh", "timeout": 60}]}]}}

The user's files are trusted whole. A project's hooks run commands, so they run only in a
folder the user trusts, each file as it was when the user trusted it
(``neocode_tui.trust``); a file whose hooks may not run is listed, with why, never silently
dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from neocode_tui.claude_tools import claude_name
from neocode_tui.json_files import MISSING, JsonRead, read_json
from neocode_tui.paths import config_dir
from neocode_tui.protected_files import CLAUDE_LOCAL_SETTINGS, CLAUDE_SETTINGS, HOOKS_FILE
from neocode_tui.trust import untrusted_reason

USER_FILE = "hooks.json"
PROJECT_FILES = (HOOKS_FILE, CLAUDE_SETTINGS, CLAUDE_LOCAL_SETTINGS)
"""The workspace's files hooks are read from, in the order they run."""
Event = Literal[
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SubagentStop",
    "SessionStart", "SessionEnd", "PreCompact", "Notification", "PermissionRequest",
]
EVENTS: tuple[Event, ...] = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SubagentStop",
    "SessionStart", "SessionEnd", "PreCompact", "Notification", "PermissionRequest",
)


class HookCommand(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)

    type: Literal["command"]
    command: str = Field(min_length=1)
    timeout: float = Field(60, gt=0, le=3600)


class HookGroup(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)

    matcher: str = ""
    hooks: list[HookCommand]


class _File(BaseModel):
    model_config = ConfigDict(defer_build=True)

    hooks: dict[str, list[HookGroup]]


@dataclass(frozen=True)
class ConfiguredHook:
    event: Event
    matcher: re.Pattern[str] | None
    """None: every tool (an empty matcher or ``*``)."""
    command: HookCommand
    path: Path

    def matches(self, subject: str) -> bool:
        """Whether the hook is about ``subject``: a tool by our name or Claude Code's, or
        the event's own word (a SessionStart's source)."""
        if self.matcher is None:
            return True
        return any(self.matcher.fullmatch(name) for name in (subject, claude_name(subject)))


@dataclass
class HookFiles:
    hooks: list[ConfiguredHook] = field(default_factory=list)
    """The hooks that run: the user's, then the workspace's where trust lets them."""
    held: dict[str, tuple[list[ConfiguredHook], str]] = field(default_factory=dict)
    """The workspace's files whose hooks may not run: their hooks, and why."""
    problems: list[str] = field(default_factory=list)


def read_hook_files(workspace: Path, *, trusted: bool = False) -> HookFiles:
    """Every hook configured for ``workspace``; ``trusted``: the user vouched for the folder
    for this run (``--trust``), else the remembered answer and fingerprints count."""
    workspace = workspace.resolve()
    found = HookFiles()
    user_claude = Path.home() / CLAUDE_SETTINGS
    for path, settings in ((config_dir() / USER_FILE, False), (user_claude, True)):
        hooks, problems = _read_file(path, settings=settings)
        found.hooks += hooks
        found.problems += problems
    for name in PROJECT_FILES:
        path = workspace / name
        if path == user_claude:
            continue
        read = read_json(path)
        hooks, problems = _read_file(path, read, settings=name != HOOKS_FILE)
        found.problems += problems
        why = "" if trusted or not hooks else untrusted_reason(workspace, name, read.raw)
        if why:
            found.held[name] = (hooks, why)
        else:
            found.hooks += hooks
    return found


def _read_file(
    path: Path, read: JsonRead | None = None, *, settings: bool,
) -> tuple[list[ConfiguredHook], list[str]]:
    """The hooks of one file; ``settings``: a Claude Code settings file, where hooks are one
    key among others (and may be absent)."""
    data, problem, _ = read if read is not None else read_json(path)
    if problem is not None or data is MISSING:
        return [], [problem] if problem else []
    if settings and isinstance(data, dict) and "hooks" not in data:
        return [], []
    if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
        return [], [f'{path}: expected {{"hooks": {{"PreToolUse": [...], ...}}}}']
    hooks: list[ConfiguredHook] = []
    problems: list[str] = []
    for event, groups in data["hooks"].items():
        if event not in EVENTS:
            problems.append(f"{path}: {event} hooks are not supported (only {', '.join(EVENTS)})")
            continue
        try:
            parsed = _File.model_validate({"hooks": {event: groups}}).hooks[event]
        except ValidationError as exc:
            problems.append(f"{path}: {event}: {_describe(exc)}")
            continue
        for group in parsed:
            try:
                matcher = None if group.matcher in ("", "*") else re.compile(group.matcher)
            except re.error as exc:
                problems.append(f"{path}: {event}: matcher {group.matcher!r} is not a valid "
                                f"pattern ({exc}); its hooks do not run")
                continue
            hooks += [ConfiguredHook(event, matcher, command, path) for command in group.hooks]
    return hooks, problems


def _describe(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(part) for part in item['loc'][2:]) or 'hooks'}: {item['msg']}"
        for item in error.errors(include_url=False)
    )
