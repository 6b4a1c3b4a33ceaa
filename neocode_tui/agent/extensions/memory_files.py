"""The instruction files the agent reads, in layers: the user's, the project's, a folder's.

- The user's ``AGENTS.md`` in their config folder applies everywhere.
- The project's ``AGENTS.md`` at the workspace root (``CLAUDE.md`` where there is none).
- A subfolder's ``AGENTS.md`` (or ``CLAUDE.md``) joins the first time the agent reads or
  edits a file under that folder, once, with a notice on screen; it is not in the system
  prompt from the start, so a monorepo's hundred folders cost nothing until used.
- A line ``@path`` in any of them imports that file in its place (relative to the file's
  folder; depth ``MAX_DEPTH``, each file and the whole bounded).

The workspace's files come from a folder nobody has vetted: they and what they import are
read as the tools read (inside the workspace, no symlink out, regular files only, a
bounded part), so ``@~/.ssh/id_rsa`` imports nothing. The user's own file is trusted: it
may be a symlink into their dotfiles, and its imports may be anywhere they point. Keys in
use are scrubbed from all of them, since the prompt is saved and shown. A file a deny rule
keeps from the model (``Workspace.hidden``) is neither loaded nor imported, whoever's
file names it: the prompt says it was withheld, and so does a notice to the user.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from neocode_tui.agent.workspace import Hidden, PathOutsideWorkspace, Workspace, withheld
from neocode_tui.paths import config_dir
from neocode_tui.protected_files import FALLBACK_INSTRUCTIONS_FILE, INSTRUCTIONS_FILE

MAX_FILE = 20_000
"""Characters of one file kept (the rest is cut, with a note)."""
MAX_TOTAL = 60_000
"""Characters of one layer with all its imports."""
MAX_DEPTH = 3
IMPORT = re.compile(r"^[ \t]*@(\S+)[ \t]*$", re.MULTILINE)

Layer = Literal["user", "project", "folder", "import"]


@dataclass(frozen=True)
class MemoryFile:
    path: Path
    shown: str
    """How /memory names it: relative to the workspace, or the user's path."""
    layer: Layer
    size: int
    """Bytes on disk."""


@dataclass(frozen=True)
class Arrived:
    """A folder's instructions, arrived with a read or edit under it."""

    folder: str
    file: MemoryFile
    text: str


class MemoryFiles:
    """What is loaded, for the prompt, the tools' results and ``/memory``."""

    def __init__(self, root: Path, secrets: Callable[[str], str] = str,
                 hidden: Hidden | None = None) -> None:
        """``hidden``: the session's check of what may reach the model (``Workspace.hidden``)."""
        self.workspace = Workspace(root)
        self.secrets = secrets
        self.hidden = hidden if hidden is not None else self.workspace.hidden
        self.withheld: list[str] = []
        """What a deny rule kept out, in words, not yet told the user (``take_withheld``)."""
        self._told: set[str] = set()
        self.files: list[MemoryFile] = []
        """Everything loaded, in order: user, project, then folders as they arrived."""
        self.folders: list[Arrived] = []
        self._seen: set[Path] = {self.workspace.root}

    # -- the system prompt ----------------------------------------------------------------

    def project(self) -> str:
        """The workspace root's file with its imports (read again at each call: the
        files loaded at the start are then listed afresh)."""
        self.files = [f for f in self.files if f.layer == "folder"]
        text = self._folder_file(self.workspace.root, "project")
        return text

    def user(self) -> str:
        path = config_dir() / INSTRUCTIONS_FILE
        raw = _read_trusted(path)
        if raw is None:
            return ""
        if why := self._withheld(path, str(path), "loaded"):
            return why
        self.files.insert(0, MemoryFile(path, str(path), "user", len(raw)))
        budget = [MAX_TOTAL]
        return self._expand(raw, path.parent, 0, budget, trusted=True)

    def arrived_section(self) -> str:
        """The folders' files loaded so far, for a prompt rebuilt after compaction: what
        the summary replaced must not take them with it."""
        return "\n\n".join(f"## {entry.file.shown}\n\n{entry.text}" for entry in self.folders)

    def forget_arrivals(self) -> bool:
        """A conversation started afresh (cleared, resumed, rewound) has none of the folders'
        files: each arrives again with the next read there. True if there were any."""
        had = bool(self.folders)
        self.files = [f for f in self.files if f.layer != "folder"]
        self.folders.clear()
        self._seen = {self.workspace.root}
        return had

    def take_withheld(self) -> list[str]:
        """What a deny rule kept out since last asked, each said once a session."""
        told = [line for line in dict.fromkeys(self.withheld) if line not in self._told]
        self._told.update(told)
        self.withheld.clear()
        return told

    # -- as the agent works ---------------------------------------------------------------

    def reached(self, paths: Iterable[Path]) -> list[Arrived]:
        """The instructions of each folder between the root and ``paths`` (resolved, inside
        the workspace) seen for the first time; reads files, so call it in a thread."""
        arrived: list[Arrived] = []
        for path in paths:
            if not path.is_relative_to(self.workspace.root):
                continue
            folder = self.workspace.root
            for part in path.relative_to(self.workspace.root).parent.parts:
                folder = folder / part
                if folder in self._seen:
                    continue
                self._seen.add(folder)
                before = len(self.files)
                text = self._folder_file(folder, "folder")
                if text and len(self.files) > before:
                    entry = Arrived(self.workspace.relative(folder), self.files[before], text)
                    self.folders.append(entry)
                    arrived.append(entry)
        return arrived

    # -- reading --------------------------------------------------------------------------

    def _folder_file(self, folder: Path, layer: Layer) -> str:
        for name in (INSTRUCTIONS_FILE, FALLBACK_INSTRUCTIONS_FILE):
            found = self._read_inside(folder / name)
            if found is not None:
                path, raw = found
                if why := self._withheld(path, self.workspace.relative(path), "loaded"):
                    return why
                self.files.append(MemoryFile(path, self.workspace.relative(path), layer, len(raw)))
                return self._expand(raw, path.parent, 0, [MAX_TOTAL], trusted=False)
        return ""

    def _read_inside(self, path: Path) -> tuple[Path, bytes] | None:
        try:
            resolved = self.workspace.resolve(str(path))
            fd, _ = self.workspace.open_file(resolved)
        except (OSError, PathOutsideWorkspace):
            return None  # none, unreadable, not a file, or a link out
        return resolved, _read_head(fd)

    def _expand(self, raw: bytes, folder: Path, depth: int, budget: list[int], *, trusted: bool) -> str:
        """The file's text with each ``@path`` line replaced by that file's (expanded)."""
        text = _cut(self.secrets(raw.decode("utf-8", "replace")).strip(), min(MAX_FILE, budget[0]))
        budget[0] -= len(text)

        def imported(match: re.Match[str]) -> str:
            target = match.group(1)
            if depth >= MAX_DEPTH or budget[0] <= 0:
                return f"[not imported: {target} (too deep or too much)]"
            found = self._read_import(folder, target, trusted)
            if found is None:
                return f"[not imported: {target} (missing, or outside the workspace)]"
            path, content = found
            if any(f.path == path for f in self.files):
                return f"[{target} is already loaded]"
            shown = str(path) if trusted else self.workspace.relative(path)
            if why := self._withheld(path, shown, "imported"):
                return why
            self.files.append(MemoryFile(path, shown, "import", len(content)))
            return self._expand(content, path.parent, depth + 1, budget, trusted=trusted)

        return IMPORT.sub(imported, text)

    def _withheld(self, path: Path, shown: str, verb: str) -> str:
        """The prompt's line for a file the check keeps from the model (and the user's
        notice), or "" when it may be sent."""
        why = self.hidden(path)
        if why is None:
            return ""
        self.withheld.append(f"{shown} was not {verb} into the instructions: {why}")
        return withheld(shown, why)

    def _read_import(self, folder: Path, target: str, trusted: bool) -> tuple[Path, bytes] | None:
        if trusted:
            path = (folder / Path(target).expanduser()).resolve()
            raw = _read_trusted(path)
            return None if raw is None else (path, raw)
        if target.startswith("~"):
            return None
        return self._read_inside(folder / target)


def _read_trusted(path: Path) -> bytes | None:
    """The user's file: symlinks allowed, regular files only (a FIFO would hang the start)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return _read_head(fd)


def _read_head(fd: int) -> bytes:
    """Enough of an open file to fill ``MAX_FILE`` characters, and closes it."""
    try:
        with os.fdopen(fd, "rb") as handle:
            return handle.read(4 * MAX_FILE + 1)
    except OSError:
        return b""


def _cut(text: str, limit: int) -> str:
    """Cut after scrubbing, so no part of a key is left at the cut."""
    if len(text) > limit:
        text = text[:limit] + f"\n[… cut at {limit} characters]"
    return text
