"""Finding files and text: ``glob`` and ``grep``, pure Python over one shared walk.

The walk never follows symlinks and skips folders nobody wants searched (VCS data,
dependencies, caches), so results stay inside the workspace and stay relevant.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from neocode_tui.agent.tools.base import FileTool, ToolError, ToolOutput
from neocode_tui.agent.tools.text import SNIFF_BYTES, looks_binary
from neocode_tui.agent.workspace import Workspace

IGNORED_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", ".mypy_cache",
     ".pytest_cache", ".ruff_cache", ".tox"}
)
MAX_RESULTS = 500
MAX_MATCHES = 200
MAX_LINE = 300
MAX_GREP_FILE_BYTES = 5_000_000


def walk_files(root: Path) -> Iterator[Path]:
    """Every file under ``root`` in a stable order, ignored folders pruned. Symlinks are
    skipped: one may lead out of the workspace, and its target is listed where it lives."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in IGNORED_DIRS)
        base = Path(folder)
        for name in sorted(files):
            path = base / name
            if not path.is_symlink():
                yield path


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """``**`` crosses folders, ``*`` and ``?`` do not, ``[...]`` is a class; anchored."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _matcher(pattern: str) -> re.Pattern[str]:
    """A bare name pattern (``*.py``) matches at any depth, as in ripgrep's ``--glob``."""
    if pattern.startswith("/") or ".." in Path(pattern).parts:
        raise ToolError(f"the pattern {pattern!r} must be relative to the search folder")
    return glob_to_regex(pattern if "/" in pattern else "**/" + pattern)


class GlobArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(description="Glob pattern, e.g. '**/*.py' or 'src/*.ts'.")
    path: str = Field(".", description="Folder to search, relative to the workspace root.")


class Glob(FileTool[GlobArgs]):
    name = "glob"
    description = (
        "Find files by name pattern ('**' spans folders; a bare '*.py' matches at any "
        "depth). Skips .git, node_modules and caches."
    )
    kind = "read"
    args_model = GlobArgs

    def summary(self, args: Mapping[str, Any]) -> str:
        where = args.get("path") or "."
        return f"glob {args.get('pattern', '')}" + (f" in {where}" if where != "." else "")

    def run_sync(self, args: GlobArgs, workspace: Workspace) -> ToolOutput:
        base = _folder(workspace, args.path)
        regex = _matcher(args.pattern)
        found = [
            workspace.relative(path)
            for path in walk_files(base)
            if regex.match(path.relative_to(base).as_posix())
        ]
        if not found:
            return ToolOutput(f"no files match {args.pattern!r}")
        shown = found[:MAX_RESULTS]
        if len(found) > MAX_RESULTS:
            shown.append(f"[{len(found) - MAX_RESULTS} more files; narrow the pattern]")
        return ToolOutput("\n".join(shown))


class GrepArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(description="Python regular expression to search for.")
    path: str = Field(".", description="File or folder to search, relative to the workspace.")
    include: str | None = Field(None, description="Only files matching this glob, e.g. '*.py'.")
    ignore_case: bool = Field(False, description="Match case-insensitively.")


class Grep(FileTool[GrepArgs]):
    name = "grep"
    description = (
        "Search file contents with a regular expression; prints path:line:text. Skips "
        "binary files, .git, node_modules and caches."
    )
    kind = "read"
    args_model = GrepArgs

    def summary(self, args: Mapping[str, Any]) -> str:
        where = args.get("path") or "."
        return f"grep {args.get('pattern', '')!r}" + (f" in {where}" if where != "." else "")

    def run_sync(self, args: GrepArgs, workspace: Workspace) -> ToolOutput:
        flags = re.IGNORECASE if args.ignore_case else 0
        try:
            regex = re.compile(args.pattern, flags)
        except re.error as exc:
            raise ToolError(f"invalid regular expression {args.pattern!r}: {exc}") from None
        whole_file = _whole_file_filter(args.pattern, flags)
        target = workspace.resolve(args.path)
        if not target.exists():
            raise ToolError(f"no such file or folder: {workspace.relative(target)}")
        base = target.parent if target.is_file() else target
        files = [target] if target.is_file() else walk_files(target)
        include = _matcher(args.include) if args.include else None
        matches: list[str] = []
        total = 0
        for path in files:
            if include and not include.match(path.relative_to(base).as_posix()):
                continue
            for number, line in _searchable_lines(path, whole_file):
                if regex.search(line):
                    total += 1
                    if len(matches) < MAX_MATCHES:
                        text = line if len(line) <= MAX_LINE else line[:MAX_LINE] + "…"
                        matches.append(f"{workspace.relative(path)}:{number}:{text}")
        if not matches:
            return ToolOutput(f"no matches for {args.pattern!r}")
        if total > MAX_MATCHES:
            matches.append(f"[{total - MAX_MATCHES} more matches; narrow the search]")
        return ToolOutput("\n".join(matches))


def _whole_file_filter(pattern: str, flags: int) -> re.Pattern[str] | None:
    """The pattern for one search over a whole file, which skips most files at C speed.

    Lines are split at ``\\n`` only (``\\r\\n`` made ``\\n`` first), so anything that
    matches in a line also matches in the file with ``^``/``$`` at line ends, except
    string anchors and negative lookarounds (``(?!\\s)`` at a line's end sees the
    newline): patterns with those get no filter.
    """
    if any(token in pattern for token in ("\\A", "\\Z", "(?!", "(?<!")):
        return None
    return re.compile(pattern, flags | re.MULTILINE)


def _searchable_lines(
    path: Path, whole_file: re.Pattern[str] | None
) -> Iterator[tuple[int, str]]:
    """Numbered lines of a text file that may match; nothing for binaries, huge or
    unreadable files, or files the whole-file filter rules out."""
    try:
        if path.stat().st_size > MAX_GREP_FILE_BYTES:
            return
        with path.open("rb") as handle:
            if looks_binary(handle.read(SNIFF_BYTES)):
                return
            handle.seek(0)
            text = handle.read().decode("utf-8", errors="replace").replace("\r\n", "\n")
    except OSError:
        return
    if not text or (whole_file is not None and not whole_file.search(text)):
        return
    lines = text.removesuffix("\n").split("\n")
    yield from enumerate(lines, start=1)


def _folder(workspace: Workspace, path: str) -> Path:
    folder = workspace.resolve(path)
    if not folder.is_dir():
        raise ToolError(f"{workspace.relative(folder)} is not a folder")
    return folder
