"""What each prompt changed in the workspace, so it can be taken back.

Every prompt starts a checkpoint; before a file tool writes a path for the first time in
that prompt, the file's bytes as they were (or "did not exist") are saved in the data
folder. Undoing a prompt writes those bytes back; rewinding to an earlier prompt restores,
for each file touched since, its state before the first of those prompts touched it.
Commands run by ``bash`` are counted, not tracked: what they changed is not restored.

Layout: ``data_dir()/checkpoints/<session>/<number>.json`` for each prompt, and the saved
contents in ``blobs/`` beside them, named by their SHA-256 (a file saved twice is stored
once). Checkpoints of a saved session outlive the app, so a resumed session can undo too.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from neocode_tui.agent.tools.edit import unified_diff
from neocode_tui.agent.tools.text import MAX_EDIT_BYTES, looks_binary
from neocode_tui.agent.workspace import NotARegularFile, PathOutsideWorkspace, Workspace
from neocode_tui.paths import data_dir, private_folder, write_private

UNTRACKED = "Changes made by bash commands are not tracked: they are not undone."


class SavedFile(BaseModel):
    model_config = ConfigDict(defer_build=True)

    path: str
    """Relative to the workspace, with ``/``."""
    blob: str | None
    """The saved content's name in ``blobs/``; None when the file did not exist."""


class Checkpoint(BaseModel):
    """One prompt, and the files as they were before it changed them."""

    model_config = ConfigDict(defer_build=True)

    number: int
    prompt: str
    message_index: int
    """Where the prompt's user message sits in the transcript: rewinding cuts there."""
    created: datetime = Field(default_factory=datetime.now)
    files: list[SavedFile] = Field(default_factory=list)
    commands: int = 0
    """``bash`` calls run during the prompt: what they changed is not tracked."""
    not_saved: list[str] = Field(default_factory=list)
    """Files too large (or unreadable) to save: changes to them cannot be undone."""
    undone: bool = False


@dataclass(frozen=True)
class Restore:
    """One file taken back: ``before`` is what it gets (None: it is removed)."""

    path: str
    before: bytes | None
    current: bytes | None
    refused: str = ""
    """Why the file is left as it is (a symlink, a folder or a FIFO stands in its place)."""

    @property
    def changes(self) -> bool:
        return bool(self.refused) or self.before != self.current

    def diff(self) -> str:
        """From the file as it is now to what it gets back."""
        if self.refused:
            return ""
        return unified_diff(
            self.path, _text(self.current), _text(self.before), created=self.current is None
        )


@dataclass(frozen=True)
class Restored:
    """What taking files back did."""

    paths: list[str]
    """The files written back (or removed, where they did not exist)."""
    refused: list[str]
    """For each file left as it is, why: nothing is ever written through a symlink."""


class CheckpointStore:
    """The checkpoints of one session, kept in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._current: Checkpoint | None = None

    @classmethod
    def for_session(cls, key: str) -> CheckpointStore:
        return cls(data_dir() / "checkpoints" / key)

    def all(self) -> list[Checkpoint]:
        """Oldest first; damaged entries are passed over."""
        found: list[Checkpoint] = []
        if not self.folder.is_dir():
            return found
        for entry in self.folder.glob("*.json"):
            try:
                found.append(Checkpoint.model_validate_json(entry.read_bytes()))
            except (OSError, ValidationError):
                continue
        return sorted(found, key=lambda checkpoint: checkpoint.number)

    def begin(self, prompt: str, message_index: int) -> Checkpoint:
        """A new checkpoint for the prompt about to run."""
        existing = self.all()
        number = existing[-1].number + 1 if existing else 1
        self._current = Checkpoint(number=number, prompt=prompt, message_index=message_index)
        self._save(self._current)
        return self._current

    def before_write(self, paths: list[Path], workspace: Workspace) -> None:
        """Save each path's current content unless this prompt saved it already."""
        checkpoint = self._current
        if checkpoint is None:
            return
        known = {saved.path for saved in checkpoint.files} | set(checkpoint.not_saved)
        for path in paths:
            shown = workspace.relative(path)
            if shown in known:
                continue
            known.add(shown)
            try:
                content = _read(workspace, path)
            except (OSError, PathOutsideWorkspace):
                checkpoint.not_saved.append(shown)
                continue
            blob = None if content is None else self._store_blob(content)
            checkpoint.files.append(SavedFile(path=shown, blob=blob))
        self._save(checkpoint)

    def ran_command(self) -> None:
        if self._current is not None:
            self._current.commands += 1
            self._save(self._current)

    def last_undoable(self) -> Checkpoint | None:
        """The latest prompt that changed files and was not undone yet."""
        for checkpoint in reversed(self.all()):
            if checkpoint.files and not checkpoint.undone:
                return checkpoint
        return None

    def restores(self, checkpoints: list[Checkpoint], workspace: Workspace) -> list[Restore]:
        """What taking back ``checkpoints`` (oldest first) would write: for each file, its
        content before the first of them touched it; files already as they were left out."""
        first: dict[str, str | None] = {}
        for checkpoint in checkpoints:
            for saved in checkpoint.files:
                first.setdefault(saved.path, saved.blob)
        plan = []
        for shown, blob in sorted(first.items()):
            before = None if blob is None else (self.folder / "blobs" / blob).read_bytes()
            try:
                current = _read(workspace, _in_workspace(workspace, shown))
            except (OSError, PathOutsideWorkspace) as exc:
                plan.append(Restore(shown, before, None, refused=_refusal(shown, exc)))
                continue
            plan.append(Restore(shown, before, current))
        return [restore for restore in plan if restore.changes]

    def apply(self, plan: list[Restore], workspace: Workspace) -> Restored:
        """Write ``plan`` back, file by file: one that cannot be (it became a symlink, a
        folder or a FIFO, even since the plan was made) is left as it is and said why."""
        restored, refused = [], []
        for restore in plan:
            if restore.refused:
                refused.append(restore.refused)
                continue
            try:
                _write_back(workspace, _in_workspace(workspace, restore.path), restore.before)
            except (OSError, PathOutsideWorkspace) as exc:
                refused.append(_refusal(restore.path, exc))
                continue
            restored.append(restore.path)
        return Restored(restored, refused)

    def mark_undone(self, checkpoint: Checkpoint) -> None:
        checkpoint.undone = True
        self._save(checkpoint)

    def drop_from(self, number: int) -> None:
        """Forget the checkpoints from ``number`` on (the conversation was rewound)."""
        for checkpoint in self.all():
            if checkpoint.number >= number:
                (self.folder / f"{checkpoint.number:05d}.json").unlink(missing_ok=True)
        if self._current is not None and self._current.number >= number:
            self._current = None

    def move_to(self, folder: Path) -> None:
        """Carry the checkpoints over to a new session's folder (after a rewind)."""
        if self.folder.is_dir() and self.folder != folder:
            private_folder(folder.parent)
            shutil.move(self.folder, folder)
        self.folder = folder

    def discard(self) -> None:
        """Remove them all (an unsaved conversation ends: nothing could resume it)."""
        shutil.rmtree(self.folder, ignore_errors=True)
        self._current = None

    def _store_blob(self, content: bytes) -> str:
        name = hashlib.sha256(content).hexdigest()
        target = self.folder / "blobs" / name
        if not target.exists():
            write_private(target, content)
        return name

    def _save(self, checkpoint: Checkpoint) -> None:
        target = self.folder / f"{checkpoint.number:05d}.json"
        write_private(target, checkpoint.model_dump_json().encode())


def _read(workspace: Workspace, path: Path) -> bytes | None:
    """The file's bytes (None: there is no such file), through the workspace's safe open;
    ``OSError`` for a file too large to keep."""
    try:
        fd, status = workspace.open_file(path)
    except FileNotFoundError:
        return None
    try:
        if status.st_size > MAX_EDIT_BYTES:
            raise OSError(errno.EFBIG, f"{workspace.relative(path)} is too large to save")
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _in_workspace(workspace: Workspace, shown: str) -> Path:
    """The saved path in the workspace, symlinks not followed: ``open_dir`` and the no-follow
    opens then refuse any that stands on the way, instead of reaching where it points."""
    relative = Path(shown)
    if relative.is_absolute() or ".." in relative.parts:
        raise PathOutsideWorkspace(f"{shown!r} is not a path inside the workspace")
    return workspace.root / relative


def _write_back(workspace: Workspace, path: Path, before: bytes | None) -> None:
    if before is not None:
        workspace.replace_file(path, before)
        return
    try:
        fd, _ = workspace.open_file(path)  # refuses a symlink, a folder, a FIFO
    except FileNotFoundError:
        return
    os.close(fd)
    with workspace.open_dir(path.parent) as folder:
        with suppress(FileNotFoundError):
            os.unlink(path.name, dir_fd=folder)


def _refusal(shown: str, exc: OSError | PathOutsideWorkspace) -> str:
    """Why ``shown`` is left as it is, in words the user can act on."""
    if isinstance(exc, PathOutsideWorkspace):
        what = "it is now a symlink, or a folder on its way is one; nothing is written through it"
    elif isinstance(exc, IsADirectoryError):
        what = "it is now a folder"
    elif isinstance(exc, NotARegularFile):
        what = f"it is now {exc.kind}"
    else:
        what = exc.strerror or str(exc)
    return f"{shown} was left as it is: {what}"


def _text(content: bytes | None) -> str:
    if content is None:
        return ""
    if looks_binary(content):
        return f"(binary, {len(content)} bytes)\n"
    return content.decode("utf-8", "replace")
