"""Looking at files: ``read_file`` and ``list_dir``."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import islice
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from neocode_tui.agent.tools.base import FileTool, ToolError, ToolOutput
from neocode_tui.agent.tools.text import check_text_file
from neocode_tui.agent.workspace import Workspace

MAX_LINES = 2000
MAX_CHARS = 100_000
MAX_ENTRIES = 1000


class ReadFileArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="File path, relative to the workspace root.")
    offset: int = Field(1, ge=1, description="First line to read (1-based).")
    limit: int = Field(MAX_LINES, ge=1, le=MAX_LINES, description="How many lines to read.")


class ReadFile(FileTool[ReadFileArgs]):
    name = "read_file"
    description = (
        "Read a text file. Lines come numbered (number, tab, text); the numbers are not "
        "part of the file. Use offset and limit to read a long file in parts."
    )
    kind = "read"
    args_model = ReadFileArgs

    def summary(self, args: Mapping[str, Any]) -> str:
        path = args.get("path", "")
        offset = args.get("offset")
        return f"read {path}" + (f" from line {offset}" if offset else "")

    def run_sync(self, args: ReadFileArgs, workspace: Workspace) -> ToolOutput:
        path = workspace.resolve(args.path)
        shown = workspace.relative(path)
        check_text_file(path, shown)
        out: list[str] = []
        size = total = 0
        last = args.offset - 1
        end = args.offset + args.limit
        full = False
        with path.open(encoding="utf-8", errors="replace") as handle:
            for total, line in enumerate(handle, start=1):
                if total < args.offset or total >= end or full:
                    continue  # outside the window, or past the character cap: just counted
                numbered = f"{total:>6}\t{line.rstrip(chr(10)).rstrip(chr(13))}"
                if size + len(numbered) > MAX_CHARS:
                    full = True
                    if out:
                        continue
                    # A single line longer than the cap (minified code): show its start.
                    numbered = numbered[:MAX_CHARS] + f" [… line cut at {MAX_CHARS} characters]"
                out.append(numbered)
                size += len(numbered) + 1
                last = total
        if not out:
            if total == 0:
                return ToolOutput(f"{shown} is empty")
            raise ToolError(f"{shown} has {total} lines; offset {args.offset} is past the end")
        text = "\n".join(out)
        if last < total:
            text += (
                f"\n[showing lines {args.offset}-{last} of {total}; "
                f"read on with offset={last + 1}]"
            )
        return ToolOutput(text)


class ListDirArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(".", description="Folder, relative to the workspace root.")


class ListDir(FileTool[ListDirArgs]):
    name = "list_dir"
    description = "List a folder's entries; folders end with '/', symlinks with '@'."
    kind = "read"
    args_model = ListDirArgs

    def summary(self, args: Mapping[str, Any]) -> str:
        return f"list {args.get('path') or '.'}"

    def run_sync(self, args: ListDirArgs, workspace: Workspace) -> ToolOutput:
        path = workspace.resolve(args.path)
        shown = workspace.relative(path)
        if not path.exists():
            raise ToolError(f"no such folder: {shown}")
        if not path.is_dir():
            raise ToolError(f"{shown} is a file, not a folder (use read_file)")
        entries = sorted(path.iterdir(), key=lambda entry: (not entry.is_dir(), entry.name))
        names = [
            entry.name + ("@" if entry.is_symlink() else "/" if entry.is_dir() else "")
            for entry in islice(entries, MAX_ENTRIES)
        ]
        if not names:
            return ToolOutput(f"{shown} is empty")
        if len(entries) > MAX_ENTRIES:
            names.append(f"[{len(entries) - MAX_ENTRIES} more entries not shown]")
        return ToolOutput("\n".join(names))
