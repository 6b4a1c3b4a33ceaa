"""Finding files and text: ``glob`` and ``grep``, both run by ripgrep.

ripgrep (the ``ripgrep`` wheel ships its ``rg`` binary) matches with finite automata, so
neither a regular expression like ``(a+)+$`` nor a glob full of stars can take
exponential time; it runs as a subprocess that a timeout or a cancel kills at once; it
never follows symlinks while walking, skips FIFOs and devices, and respects
``.gitignore``. Folders nobody wants searched (VCS data, dependencies, caches) are
skipped on top of that. Names and lines come back as bytes and are shown escaped where
they are not UTF-8.
"""

from __future__ import annotations

import asyncio
import fnmatch
import os
import shutil
import sysconfig
from collections.abc import Mapping
from contextlib import AbstractContextManager
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from neocode_tui.agent.tools.base import (
    TIME_LIMIT,
    OutputCallback,
    Tool,
    ToolError,
    ToolOutput,
    capped,
)
from neocode_tui.agent.tools.text import SNIFF_BYTES, looks_binary
from neocode_tui.agent.workspace import NotARegularFile, Workspace, printable_name

IGNORED_DIRS = (
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".tox",
)
MAX_RESULTS = 500
MAX_MATCHES = 200
MAX_LINE = 300
"""Bytes of a matching line shown; ripgrep marks the cut."""
MAX_GREP_FILE_BYTES = 5_000_000
COMMON_FLAGS = [
    "--no-config", "--hidden", "--sort=path", "--no-messages", "--color=never",
    *(f"--glob=!{name}" for name in IGNORED_DIRS),
]
"""No user ripgrep config (its flags would change the output), hidden files included."""
INCLUDE_IGNORED = Field(
    False, description="Also look in what .gitignore and .ignore leave out (never in .git)."
)


def _ignore_flags(include_ignored: bool) -> list[str]:
    """The repository's own ignore rules apply unless the model asks past them; the folders
    nobody searches (dependencies, caches) go with them, ``.git`` never."""
    if include_ignored:
        return ["--no-ignore", "--no-config", "--hidden", "--sort=path", "--no-messages",
                "--color=never", "--glob=!.git"]
    return COMMON_FLAGS
CHUNK = 65536


def rg_binary() -> str:
    """The ``rg`` installed beside this Python (the ``ripgrep`` wheel), else on PATH."""
    beside = Path(sysconfig.get_path("scripts")) / "rg"
    if beside.is_file():
        return str(beside)
    found = shutil.which("rg")
    if found is None:
        raise ToolError("ripgrep (rg) is not installed; reinstall neocode-tui to get it")
    return found


def _quoted(pattern: str) -> str:
    """A pattern echoed in a message: quoted, and cut if the model sent a huge one."""
    return repr(pattern if len(pattern) <= 200 else pattern[:200] + "…")


def _check_glob(pattern: str) -> str:
    if pattern.startswith("/") or ".." in PurePosixPath(pattern).parts:
        raise ToolError(f"the pattern {_quoted(pattern)} must be relative to the search folder")
    if pattern.startswith("!"):
        raise ToolError(f"the pattern {_quoted(pattern)} must not start with '!'")
    return pattern


class _Records:
    """The first ``keep`` records of ripgrep's output, and a count of all of them.

    A record ends at ``end``. A ``named`` one is a path, NUL, then a line ended by a
    newline: a newline inside a file name does not split it, and each record has exactly
    one NUL to count it by.
    """

    def __init__(self, keep: int, end: bytes = b"\n", *, named: bool = False) -> None:
        self.keep, self.end, self.named = keep, end, named
        self.records: list[bytes] = []
        self.total = 0
        self._pending = b""

    def feed(self, chunk: bytes) -> None:
        mark = b"\0" if self.named else self.end
        if len(self.records) >= self.keep:
            self.total += chunk.count(mark)
            return
        data, pos = self._pending + chunk, 0
        while len(self.records) < self.keep:
            start = data.find(b"\0", pos) if self.named else pos
            stop = -1 if start == -1 else data.find(self.end, start)
            if stop == -1:
                self._pending = data[pos:]
                return
            self.records.append(data[pos:stop])
            self.total += 1
            pos = stop + 1
        self._pending = b""
        self.total += data.count(mark, pos)


async def run_rg(
    flags: list[str], folder: int, where: Path, out: _Records, *, stdin: int | None = None,
    limit: float = TIME_LIMIT,
) -> tuple[int, str]:
    """Run ripgrep in the open folder ``folder`` (at ``where``), its output into ``out``;
    the exit code and error text. The process is killed when ``limit`` runs out
    or on cancel. Where ``/proc`` exists the child starts in the very folder that was
    opened, so a symlink swapped in for its path since cannot redirect the search."""
    proc_fd = f"/proc/self/fd/{folder}"
    cwd = proc_fd if os.path.isdir(proc_fd) else str(where)
    process = await asyncio.create_subprocess_exec(
        rg_binary(), *flags,
        cwd=cwd, pass_fds=(folder,),
        stdin=stdin if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    errors = asyncio.create_task(_head_of(process.stderr, 4096))
    try:
        async with asyncio.timeout(limit):
            while chunk := await process.stdout.read(CHUNK):
                out.feed(chunk)
            code = await process.wait()
            message = (await errors).decode("utf-8", "replace").strip()
            return code, message.removeprefix("rg: ")
    except TimeoutError:
        raise ToolError(
            f"stopped after {limit:g}s, the time limit for this tool; narrow the search "
            "(a smaller folder, an include pattern or a more specific expression)"
        ) from None
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        errors.cancel()


async def _head_of(stream: asyncio.StreamReader, size: int) -> bytes:
    """The first ``size`` bytes of a stream, read to its end."""
    kept = b""
    while chunk := await stream.read(CHUNK):
        kept += chunk[: size - len(kept)]
    return kept


class GlobArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(description="Glob pattern, e.g. '**/*.py' or 'src/*.ts'.")
    path: str = Field(".", description="Folder to search, relative to the workspace root.")
    include_ignored: bool = INCLUDE_IGNORED


class Glob(Tool[GlobArgs]):
    name = "glob"
    description = (
        "Find files by name pattern ('**' spans folders; a bare '*.py' matches at any "
        "depth; '{a,b}' alternatives). Skips .git, node_modules, caches and what "
        ".gitignore ignores."
    )
    kind = "read"
    args_model = GlobArgs

    def summary(self, args: Mapping[str, Any]) -> str:
        where = args.get("path") or "."
        return f"glob {args.get('pattern', '')}" + (f" in {where}" if where != "." else "")

    async def run(
        self, args: GlobArgs, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput:
        base = workspace.resolve(args.path)
        pattern = _check_glob(args.pattern)
        out = _Records(MAX_RESULTS, b"\0")
        every = _Records(0, b"\0")
        listing = ["--files", "--null", f"--glob={pattern}"]
        with _folder(workspace, base) as folder:
            code, errors = await run_rg(
                [*listing, *_ignore_flags(args.include_ignored)], folder, base, out
            )
            if not args.include_ignored and code != 2:  # what the ignore rules kept out
                await run_rg([*listing, *_ignore_flags(True)], folder, base, every)
        if code == 2 and not out.total:
            raise ToolError(f"invalid glob pattern {_quoted(pattern)}: {errors}")
        skipped = max(every.total - out.total, 0)
        note = (
            f"[{skipped} more matching files are ignored (.gitignore, dependencies, caches); "
            "include_ignored=true lists them]" if skipped else ""
        )
        if not out.total:
            return ToolOutput("\n".join(filter(None, [f"no files match {_quoted(pattern)}", note])))
        found = [base / os.fsdecode(line) for line in out.records]
        visible = [path for path in found if not workspace.hidden(path)]
        shown = [workspace.relative(path) for path in visible]
        if len(visible) < len(found):
            note = "\n".join(filter(None, [note, _DENIED_NOTE.format(len(found) - len(visible))]))
        if out.total > len(found):
            shown.append(f"[{out.total - len(found)} more files; narrow the pattern]")
        if note:
            shown.append(note)
        return capped(ToolOutput("\n".join(shown)))


class GrepArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(
        description="Regular expression (Rust syntax: like Python's re, without "
        "look-around or backreferences)."
    )
    path: str = Field(".", description="File or folder to search, relative to the workspace.")
    include: str | None = Field(None, description="Only files matching this glob, e.g. '*.py'.")
    ignore_case: bool = Field(False, description="Match case-insensitively.")
    include_ignored: bool = INCLUDE_IGNORED


class Grep(Tool[GrepArgs]):
    name = "grep"
    description = (
        "Search file contents with a regular expression; prints path:line:text. Skips "
        "binary files, .git, node_modules, caches and what .gitignore ignores."
    )
    kind = "read"
    args_model = GrepArgs

    def summary(self, args: Mapping[str, Any]) -> str:
        where = args.get("path") or "."
        return f"grep {args.get('pattern', '')!r}" + (f" in {where}" if where != "." else "")

    async def run(
        self, args: GrepArgs, workspace: Workspace, on_output: OutputCallback | None = None
    ) -> ToolOutput:
        target = workspace.resolve(args.path)
        include = _check_glob(args.include) if args.include else None
        flags = [
            "--line-number", "--null", "--crlf", f"--max-columns={MAX_LINE}",
            "--max-columns-preview", f"--max-filesize={MAX_GREP_FILE_BYTES}",
            *(["--ignore-case"] if args.ignore_case else []),
            *_ignore_flags(args.include_ignored),
        ]
        out = _Records(MAX_MATCHES, named=target.is_dir())
        if target.is_dir():
            with _folder(workspace, target) as folder:
                include_flag = [f"--glob={include}"] if include else []
                code, errors = await run_rg(
                    ["--with-filename", *include_flag, *flags, "--regexp", args.pattern, "."],
                    folder, target, out,
                )
            prefix = workspace.relative(target)
        else:
            prefix = workspace.relative(target)
            if include and not fnmatch.fnmatchcase(target.name, include.rsplit("/", 1)[-1]):
                return ToolOutput(f"no matches for {_quoted(args.pattern)}")
            code, errors = await _grep_file(workspace, target, prefix, flags, args.pattern, out)
        if code == 2 and not out.total:
            if "regex" in errors:
                raise ToolError(f"invalid regular expression {_quoted(args.pattern)}: {errors}")
            raise ToolError(f"grep failed: {errors or 'ripgrep stopped with exit code 2'}")
        if not out.total:
            return ToolOutput(f"no matches for {_quoted(args.pattern)}")
        records = [line for line in out.records if not (out.named and _hidden(workspace, target, line))]
        matches = [_match_line(line, prefix, single=not out.named) for line in records]
        if len(records) < len(out.records):
            matches.append(_DENIED_NOTE.format(len(out.records) - len(records)))
        if out.total > len(out.records):
            matches.append(f"[{out.total - len(out.records)} more matches; narrow the search]")
        return capped(ToolOutput("\n".join(matches)))


async def _grep_file(
    workspace: Workspace, target: Path, shown: str, flags: list[str], pattern: str,
    out: _Records,
) -> tuple[int, str]:
    """One file, opened safely here and given to ripgrep as its input."""
    try:
        fd, status = workspace.open_file(target)
    except FileNotFoundError:
        raise ToolError(f"no such file or folder: {shown}") from None
    except NotARegularFile as exc:
        raise ToolError(exc.strerror) from None
    try:
        if status.st_size > MAX_GREP_FILE_BYTES or looks_binary(os.pread(fd, SNIFF_BYTES, 0)):
            return 1, ""
        with workspace.open_dir(target.parent) as folder:
            return await run_rg(
                ["--no-filename", *flags, "--regexp", pattern, "-"], folder, target.parent, out,
                stdin=fd,
            )
    finally:
        os.close(fd)


_DENIED_NOTE = "[{} results in files your permission rules deny reading were left out]"


def _hidden(workspace: Workspace, folder: Path, line: bytes) -> bool:
    """Whether a match of a folder search is in a file a deny rule keeps from being read."""
    raw_path = line.partition(b"\0")[0].removeprefix(b"./")
    return workspace.hidden(folder / os.fsdecode(raw_path)) is not None


def _match_line(line: bytes, prefix: str, *, single: bool) -> str:
    """``path:number:text`` from ripgrep's ``path NUL number:text``."""
    if single:
        path, rest = prefix, line
    else:
        raw_path, _, rest = line.partition(b"\0")
        raw_path = raw_path.removeprefix(b"./")
        name = printable_name(os.fsdecode(raw_path))
        path = name if prefix == "." else f"{prefix}/{name}"
    number, _, text = rest.partition(b":")
    shown = text.removesuffix(b"\r").decode("utf-8", "replace")
    return f"{path}:{number.decode('ascii', 'replace')}:{shown}"


def _folder(workspace: Workspace, folder: Path) -> AbstractContextManager[int]:
    """The open folder to search, or a ``ToolError`` saying why it cannot be."""
    shown = workspace.relative(folder)
    if not folder.exists():
        raise ToolError(f"no such folder: {shown}")
    if not folder.is_dir():
        raise ToolError(f"{shown} is not a folder")
    return workspace.open_dir(folder)
