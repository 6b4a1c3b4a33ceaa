"""Changing files: ``write_file`` and ``edit_file``.

Each plans its change first (old text, new text) without touching the disk. The plan
gives the approval preview and the run the same diff, and a change that cannot work
(old text missing or ambiguous) fails before anyone is asked to approve it.
"""

from __future__ import annotations

import asyncio
import difflib
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from neocode_tui.agent.tools.base import FileTool, ToolError, ToolOutput
from neocode_tui.agent.tools.text import line_count, read_text
from neocode_tui.agent.workspace import Workspace

NO_NEWLINE = "\\ No newline at end of file\n"


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

    def apply(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(self.after, encoding="utf-8", newline="")


def unified_diff(shown: str, before: str, after: str, created: bool = False) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile="/dev/null" if created else f"a/{shown}",
        tofile=f"b/{shown}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" + NO_NEWLINE for line in lines)


class _ChangeTool(FileTool[Any]):
    kind = "edit"

    @abstractmethod
    def plan(self, args: Any, workspace: Workspace) -> Change: ...

    async def preview(self, args: Any, workspace: Workspace) -> str | None:
        return (await asyncio.to_thread(self.plan, args, workspace)).diff


class WriteFileArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="File path, relative to the workspace root.")
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

    def plan(self, args: WriteFileArgs, workspace: Workspace) -> Change:
        path = workspace.resolve(args.path)
        shown = workspace.relative(path)
        if path.is_dir():
            raise ToolError(f"{shown} is a folder; give a file path")
        created = not path.exists()
        before = "" if created else read_text(path, shown)
        return Change(path, shown, before, args.content, created)

    def run_sync(self, args: WriteFileArgs, workspace: Workspace) -> ToolOutput:
        change = self.plan(args, workspace)
        change.apply()
        verb = "created" if change.created else "wrote"
        return ToolOutput(
            f"{verb} {change.shown} ({line_count(args.content)} lines)", diff=change.diff
        )


class EditFileArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="File path, relative to the workspace root.")
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

    def plan(self, args: EditFileArgs, workspace: Workspace) -> Change:
        path = workspace.resolve(args.path)
        shown = workspace.relative(path)
        if not args.old_string:
            raise ToolError("old_string is empty; use write_file to create or replace a file")
        if args.old_string == args.new_string:
            raise ToolError("old_string and new_string are the same; nothing would change")
        before = read_text(path, shown)
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
        return Change(path, shown, before, before.replace(old, new), False, count)

    def run_sync(self, args: EditFileArgs, workspace: Workspace) -> ToolOutput:
        change = self.plan(args, workspace)
        change.apply()
        noun = "replacement" if change.replacements == 1 else "replacements"
        diff = change.diff
        summary = f"edited {change.shown} ({change.replacements} {noun})"
        return ToolOutput(f"{summary}\n{diff}", diff=diff)
