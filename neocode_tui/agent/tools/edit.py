"""Changing files: ``write_file`` and ``edit_file``.

Each plans its change first (old text, new text) without touching the disk. The plan
gives the approval preview and the run the same diff, and a change that cannot work
(old text missing or ambiguous) fails before anyone is asked to approve it. The path is
resolved once, when approval looks at it, and the run writes exactly there (through
``Workspace.replace_file``, which follows no symlink that appears in the meantime).
"""

from __future__ import annotations

import difflib
import re
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from neocode_tui.agent.loop_events import FileChange
from neocode_tui.agent.tools.base import (
    RESULT_CAP,
    Deadline,
    FileTool,
    Preview,
    ToolError,
    ToolOutput,
    cap_text,
    in_thread,
)
from neocode_tui.agent.tools.text import MAX_EDIT_BYTES, line_count, read_text, write_text
from neocode_tui.agent.workspace import Workspace

NO_NEWLINE = "\\ No newline at end of file\n"
CONTEXT = 3
DIFF_LINES = 4000
"""Changed lines (both sides) up to which the diff is a minimal one; past that difflib's
time grows too fast, so the changed region is shown as one block removed and added."""
_HUNK = re.compile(r"@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


@dataclass(frozen=True)
class Change:
    path: Path
    shown: str
    before: str
    after: str
    created: bool
    replacements: int = 0

    @property
    def diff(self) -> str:
        return unified_diff(self.shown, self.before, self.after, self.created)

    def event(self) -> FileChange:
        return FileChange(
            path=str(self.path), before=None if self.created else self.before, after=self.after
        )

    def apply(self, workspace: Workspace) -> None:
        write_text(workspace, self.path, self.after)


def unified_diff(shown: str, before: str, after: str, created: bool = False) -> str:
    """The unified diff of two texts, in time about linear in their size: the unchanged
    lines at both ends are set aside first, and only the middle goes to difflib."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    same = min(len(old), len(new))
    head = next((i for i in range(same) if old[i] != new[i]), same)
    tail = next((i for i in range(same - head) if old[-1 - i] != new[-1 - i]), same - head)
    start = max(0, head - CONTEXT)
    old_mid = old[start : len(old) - max(0, tail - CONTEXT)]
    new_mid = new[start : len(new) - max(0, tail - CONTEXT)]
    names = ("/dev/null" if created else f"a/{shown}", f"b/{shown}")
    if not old_mid and not new_mid:
        return ""
    if len(old_mid) + len(new_mid) - 4 * CONTEXT <= DIFF_LINES:
        lines = [
            _shifted(line, start)
            for line in difflib.unified_diff(old_mid, new_mid, *names, n=CONTEXT)
        ]
    else:
        lines = _one_block(old, new, head, tail, names)
    return "".join(line if line.endswith("\n") else line + "\n" + NO_NEWLINE for line in lines)


def _shifted(line: str, offset: int) -> str:
    """A hunk header of a diff of a slice, renumbered for the whole file."""
    match = _HUNK.fullmatch(line.rstrip("\n"))
    if match is None or not offset:
        return line
    old, old_len, new, new_len = match.groups()
    return f"@@ -{int(old) + offset}{old_len or ''} +{int(new) + offset}{new_len or ''} @@\n"


def _one_block(
    old: list[str], new: list[str], head: int, tail: int, names: tuple[str, str]
) -> list[str]:
    """One hunk: the differing middle removed and added, with context around it."""
    start = max(0, head - CONTEXT)
    old_end, new_end = len(old) - tail, len(new) - tail
    after = min(CONTEXT, tail)
    old_count = old_end - start + after
    new_count = new_end - start + after
    return [
        f"--- {names[0]}\n", f"+++ {names[1]}\n",
        f"@@ -{start + 1},{old_count} +{start + 1},{new_count} @@\n",
        *(" " + line for line in old[start:head]),
        *("-" + line for line in old[head:old_end]),
        *("+" + line for line in new[head:new_end]),
        *(" " + line for line in old[old_end : old_end + after]),
    ]


class _TargetArgs(BaseModel):
    """Arguments naming the one file a change tool writes."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="File path, relative to the workspace root.")
    _target: Path | None = PrivateAttr(default=None)


class _ChangeTool(FileTool[Any]):
    kind = "edit"

    def target(self, args: _TargetArgs, workspace: Workspace) -> Path:
        """The resolved path, fixed the first time it is asked for: what approval saw is
        what the run writes, even if a symlink on the way changes in between."""
        if args._target is None:
            args._target = workspace.resolve(args.path)
        return args._target

    def writes(self, args: _TargetArgs, workspace: Workspace) -> list[Path]:
        return [self.target(args, workspace)]

    def named_writes(self, args: _TargetArgs) -> list[str]:
        return [args.path]

    @abstractmethod
    def plan(self, args: Any, workspace: Workspace, deadline: Deadline) -> Change: ...

    async def preview(self, args: Any, workspace: Workspace) -> Preview | None:
        change = await in_thread(self.plan, args, workspace, limit=self.time_limit)
        return Preview(cap_text(change.diff, RESULT_CAP), change.event())


class WriteFileArgs(_TargetArgs):
    content: str = Field(description="The whole new content of the file.")


class WriteFile(_ChangeTool):
    name = "write_file"
    description = (
        "Create a file or replace its whole content; missing folders are created. "
        "Prefer edit_file for changing part of an existing file."
    )
    args_model = WriteFileArgs

    def summary(self, args: Mapping[str, Any]) -> str:
        content = args.get("content")
        lines = f" ({line_count(content)} lines)" if isinstance(content, str) else ""
        return f"write {args.get('path', '')}{lines}"

    def plan(self, args: WriteFileArgs, workspace: Workspace, deadline: Deadline) -> Change:
        path = self.target(args, workspace)
        shown = workspace.relative(path)
        if path.is_dir():
            raise ToolError(f"{shown} is a folder; give a file path")
        created = not path.exists()
        before = "" if created else read_text(workspace, path, shown, deadline)
        return Change(path, shown, before, args.content, created)

    def run_sync(self, args: WriteFileArgs, workspace: Workspace, deadline: Deadline) -> ToolOutput:
        change = self.plan(args, workspace, deadline)
        deadline.check()  # a call cancelled while planning writes nothing
        change.apply(workspace)
        verb = "created" if change.created else "wrote"
        return ToolOutput(
            f"{verb} {change.shown} ({line_count(args.content)} lines)", diff=change.diff,
            change=change.event(),
        )


class EditFileArgs(_TargetArgs):
    old_string: str = Field(description="The exact text to replace (without line numbers).")
    new_string: str = Field(description="The text to put in its place.")
    replace_all: bool = Field(False, description="Replace every occurrence, not just one.")


class EditFile(_ChangeTool):
    name = "edit_file"
    description = (
        "Replace an exact piece of text in a file. old_string must occur exactly once "
        "(include surrounding lines to make it unique) unless replace_all is true. "
        "Returns a unified diff."
    )
    args_model = EditFileArgs

    def summary(self, args: Mapping[str, Any]) -> str:
        return f"edit {args.get('path', '')}"

    def plan(self, args: EditFileArgs, workspace: Workspace, deadline: Deadline) -> Change:
        path = self.target(args, workspace)
        shown = workspace.relative(path)
        if not args.old_string:
            raise ToolError("old_string is empty; use write_file to create or replace a file")
        if args.old_string == args.new_string:
            raise ToolError("old_string and new_string are the same; nothing would change")
        before = read_text(workspace, path, shown, deadline)
        old, new = args.old_string, args.new_string
        if old not in before and "\r\n" in before:
            # The model writes "\n"; a CRLF file keeps its own line endings.
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        count = before.count(old)
        if count == 0:
            raise ToolError(
                f"old_string was not found in {shown}; read the file again and copy the "
                "text exactly, without the line numbers"
            )
        if count > 1 and not args.replace_all:
            raise ToolError(
                f"old_string occurs {count} times in {shown}; include more surrounding "
                "lines to make it unique, or set replace_all to true"
            )
        if len(before) + count * (len(new) - len(old)) > 2 * MAX_EDIT_BYTES:
            raise ToolError(
                f"the edit would make {shown} larger than {2 * MAX_EDIT_BYTES} characters"
            )
        return Change(path, shown, before, before.replace(old, new), False, count)

    def run_sync(self, args: EditFileArgs, workspace: Workspace, deadline: Deadline) -> ToolOutput:
        change = self.plan(args, workspace, deadline)
        deadline.check()
        change.apply(workspace)
        noun = "replacement" if change.replacements == 1 else "replacements"
        diff = change.diff
        summary = f"edited {change.shown} ({change.replacements} {noun})"
        return ToolOutput(f"{summary}\n{diff}", diff=diff, change=change.event())
