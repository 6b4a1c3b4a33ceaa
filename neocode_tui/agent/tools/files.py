"""Looking at files: ``read_file`` and ``list_dir``.

Both keep their memory bounded by what they return: a file is read in chunks with only
the requested lines kept (each cut to a length), and a folder of millions of entries is
counted, not held.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from neocode_tui.agent.images import ImageError, describe, read_image
from neocode_tui.agent.tools.base import Deadline, FileTool, ToolError, ToolOutput
from neocode_tui.agent.tools.text import CHUNK, editor_text, open_text_file
from neocode_tui.agent.workspace import PathOutsideWorkspace, Workspace, printable_name, withheld
from neocode_tui.deferred import lazy

if TYPE_CHECKING:
    import pathspec

    from neocode_tui.agent.tools.skill import SkillFolders
else:  # after the first frame, or on first use (neocode_tui/deferred.py)
    pathspec = lazy("pathspec")

MAX_LINES = 2000
MAX_CHARS = 100_000
MAX_ENTRIES = 1000
COUNT_BYTES = 64_000_000
"""Past the lines shown, a file is read on to count its lines only up to this size."""
LISTED = 50_000
"""Entries of a folder sorted for the listing; beyond this they are only counted."""


class ReadFileArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="File path, relative to the workspace root.")
    offset: int = Field(1, ge=1, description="First line to read (1-based).")
    limit: int = Field(MAX_LINES, ge=1, le=MAX_LINES, description="How many lines to read.")


class ReadFile(FileTool[ReadFileArgs]):
    name = "read_file"
    description = (
        "Read a text file. Lines come numbered (number, tab, text); the numbers are not "
        "part of the file. Use offset and limit to read a long file in parts. Images come as images."
    )
    kind = "read"
    args_model = ReadFileArgs

    def __init__(self, skills: SkillFolders | None = None) -> None:
        self.skills = skills
        """The folders of loaded skills: the only files outside the workspace it reads."""

    def touches(self, args: ReadFileArgs, workspace: Workspace) -> list[Path]:
        try:
            return [workspace.resolve(args.path)]
        except PathOutsideWorkspace:
            return []

    def _where(self, path: str, workspace: Workspace) -> tuple[Workspace, Path, str]:
        """The root the file is read from (the workspace, or a loaded skill's folder)."""
        try:
            resolved = workspace.resolve(path)
        except PathOutsideWorkspace:
            found = self.skills.find(path) if self.skills is not None else None
            if found is None:
                raise
            return found[0], found[1], printable_name(str(found[1]))
        return workspace, resolved, workspace.relative(resolved)

    def summary(self, args: Mapping[str, Any]) -> str:
        path = args.get("path", "")
        offset = args.get("offset")
        return f"read {path}" + (f" from line {offset}" if offset else "")

    def run_sync(self, args: ReadFileArgs, workspace: Workspace, deadline: Deadline) -> ToolOutput:
        root, path, shown = self._where(args.path, workspace)
        if why := workspace.hidden(path):  # also where no rule check came first (a skill's file)
            raise ToolError(withheld(shown, why))
        image = _image(root, path, shown, deadline)
        if image is not None:
            return image
        with open_text_file(root, path, shown) as (fd, status):
            window = _Window(args.offset, args.offset + args.limit)
            if root.buffers is not None:  # the editor's text, unsaved changes included
                window.feed(editor_text(root, path, shown).encode("utf-8", "surrogateescape"))
                window.finish()
            else:
                _read_into(window, fd, status.st_size <= COUNT_BYTES, deadline)
        out = window.shown
        last = args.offset + len(out) - 1
        total = window.number if window.at_eof else None
        if not out:
            if total == 0:
                return ToolOutput(f"{shown} is empty")
            raise ToolError(f"{shown} has {total} lines; offset {args.offset} is past the end")
        text = "\n".join(out)
        if total is None:
            text += (
                f"\n[showing lines {args.offset}-{last} of a {status.st_size}-byte file; "
                f"read on with offset={last + 1}]"
            )
        elif last < total:
            text += (
                f"\n[showing lines {args.offset}-{last} of {total}; "
                f"read on with offset={last + 1}]"
            )
        return ToolOutput(text)


def _read_into(window: _Window, fd: int, counting: bool, deadline: Deadline) -> None:
    """The file from ``fd`` through the window; past its end only while ``counting``."""
    while chunk := os.read(fd, CHUNK):
        deadline.check()
        window.feed(chunk)
        if window.past_end and not counting:
            return
    window.finish()
def _image(workspace: Workspace, path: Path, shown: str, deadline: Deadline) -> ToolOutput | None:
    """The file as an image, if it is one; a file that cannot be opened is left to the
    text reader, which says why."""
    try:
        image = read_image(workspace, path, shown, deadline)
    except ImageError as exc:
        raise ToolError(str(exc)) from None
    except OSError:
        return None
    if image is None:
        return None
    return ToolOutput(f"{shown} is an image ({describe(image)}), attached", images=(image,))


class _Window:
    """Lines ``start`` to ``end - 1`` of a byte stream fed in chunks, numbered and cut to
    ``MAX_CHARS`` in all; every other line is only counted, and a line is cut as soon as
    it is too long (it may go on for gigabytes)."""

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end
        self.number = 0
        """Complete lines seen so far."""
        self.shown: list[str] = []
        self.size = 0
        self.full = False
        self.line = bytearray()
        self.line_done = False
        """The current line was already shown (cut): the rest of it is skipped."""
        self.partial = False
        """Bytes of an unfinished line have been seen."""
        self.at_eof = False

    @property
    def past_end(self) -> bool:
        return self.number + 1 >= self.end or self.full

    def feed(self, chunk: bytes) -> None:
        pos = 0
        while pos < len(chunk):
            current = self.number + 1
            if self.line_done:
                newline = chunk.find(b"\n", pos)
                if newline == -1:
                    return
                self.number += 1
                self.line_done = self.partial = False
                pos = newline + 1
            elif current < self.start:
                # Before the window: count whole lines in C, without looking at them.
                skip = self.start - current
                if chunk.count(b"\n", pos) < skip:
                    self._count(chunk, pos)
                    return
                for _ in range(skip):
                    pos = chunk.index(b"\n", pos) + 1
                self.number += skip
                self.partial = False
            elif current >= self.end or self.full:
                self._count(chunk, pos)
                return
            else:
                pos = self._collect(chunk, pos)

    def _count(self, chunk: bytes, pos: int) -> None:
        self.number += chunk.count(b"\n", pos)
        self.partial = not chunk.endswith(b"\n")

    def _collect(self, chunk: bytes, pos: int) -> int:
        """Add to the current line in the window; where the next one starts in ``chunk``."""
        newline = chunk.find(b"\n", pos)
        stop = len(chunk) if newline == -1 else newline
        room = MAX_CHARS - len(self.line)
        self.partial = True
        if stop - pos > room:
            self.line += chunk[pos : pos + room]
            self._show(cut=True)
            self.line_done = True
            return pos + room
        self.line += chunk[pos:stop]
        if newline == -1:
            return len(chunk)
        self._show(cut=False)
        self.number += 1
        self.partial = False
        return newline + 1

    def finish(self) -> None:
        self.at_eof = True
        if not self.partial:
            return
        current = self.number + 1
        if not self.line_done and self.start <= current < self.end and not self.full:
            self._show(cut=False)
        self.number += 1
        self.partial = self.line_done = False

    def _show(self, *, cut: bool) -> None:
        raw = bytes(self.line) if cut else bytes(self.line).removesuffix(b"\r")
        self.line.clear()
        numbered = f"{self.number + 1:>6}\t{raw.decode('utf-8', 'replace')}"
        if cut or self.size + len(numbered) > MAX_CHARS:
            self.full = True
            if self.shown:
                return
            # A single line longer than the cap (minified code): show its start.
            numbered = numbered[:MAX_CHARS] + f" [… line cut at {MAX_CHARS} characters]"
        self.shown.append(numbered)
        self.size += len(numbered) + 1


class ListDirArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(".", description="Folder, relative to the workspace root.")
    include_ignored: bool = Field(
        False, description="Also list what .gitignore and .ignore leave out (and .git)."
    )


class ListDir(FileTool[ListDirArgs]):
    name = "list_dir"
    description = (
        "List a folder's entries; folders end with '/', symlinks with '@'. Leaves out .git and "
        "what .gitignore and .ignore ignore, and says how many."
    )
    kind = "read"
    args_model = ListDirArgs

    def summary(self, args: Mapping[str, Any]) -> str:
        return f"list {args.get('path') or '.'}"

    def run_sync(self, args: ListDirArgs, workspace: Workspace, deadline: Deadline) -> ToolOutput:
        path = workspace.resolve(args.path)
        shown = workspace.relative(path)
        try:
            with workspace.open_dir(path) as folder:
                entries, more = _entries(folder, deadline)
        except FileNotFoundError:
            raise ToolError(f"no such folder: {shown}") from None
        except NotADirectoryError:
            raise ToolError(f"{shown} is a file, not a folder (use read_file)") from None
        skipped: list[str] = []
        if not args.include_ignored:
            ignored = ignore_rules(workspace.root_of(path), path)
            skipped = [name + mark for name, mark in entries if ignored(name, mark == "/")]
            entries = [entry for entry in entries if entry[0] + entry[1] not in skipped]
        entries.sort(key=lambda entry: (not entry[1].endswith("/"), entry[0]))
        names = [printable_name(name) + mark for name, mark in entries[:MAX_ENTRIES]]
        hidden = len(entries) - len(names) + more
        if hidden:
            names.append(f"[{hidden} more entries not shown]")
        if skipped:
            listed = ", ".join(printable_name(name) for name in sorted(skipped)[:5])
            listed += ", …" if len(skipped) > 5 else ""
            names.append(f"[{len(skipped)} ignored entries not shown ({listed}); include_ignored=true lists them]")
        if not names:
            return ToolOutput(f"{shown} is empty")
        return ToolOutput("\n".join(names))


IGNORE_FILES = (".gitignore", ".ignore")
MAX_IGNORE_FILE = 1_000_000


def ignore_rules(root: Path, folder: Path) -> Callable[[str, bool], bool]:
    """Whether an entry of ``folder`` is left out: ``.git``, and what the ``.gitignore`` and
    ``.ignore`` files from the workspace root down to ``folder`` ignore, the deeper file
    winning, as git reads them (pathspec's gitignore rules)."""
    specs: list[tuple[Path, pathspec.GitIgnoreSpec]] = []
    relative = folder.relative_to(root)
    for depth in range(len(relative.parts) + 1):
        base = root.joinpath(*relative.parts[:depth])
        for name in IGNORE_FILES:
            lines = _ignore_lines(base / name)
            if lines:
                specs.append((base, pathspec.GitIgnoreSpec.from_lines(lines)))

    def ignored(name: str, is_dir: bool) -> bool:
        if name == ".git":
            return True
        verdict = False
        for base, spec in specs:
            check = spec.check_file((folder / name).relative_to(base).as_posix() + ("/" if is_dir else ""))
            if check.include is not None:
                verdict = check.include
        return verdict

    return ignored


def _ignore_lines(path: Path) -> list[str]:
    """An ignore file's lines if it is a regular, sane-sized file; none otherwise."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_IGNORE_FILE:
            return []
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def _entries(folder: int, deadline: Deadline) -> tuple[list[tuple[str, str]], int]:
    """(name, marker) for up to ``LISTED`` entries of an open folder, and how many more."""
    entries: list[tuple[str, str]] = []
    more = 0
    with os.scandir(folder) as scan:
        for count, entry in enumerate(scan):
            if count % 1000 == 0:
                deadline.check()
            if len(entries) >= LISTED:
                more += 1
                continue
            mark = "@" if entry.is_symlink() else "/" if entry.is_dir(follow_symlinks=False) else ""
            entries.append((entry.name, mark))
    return entries, more
