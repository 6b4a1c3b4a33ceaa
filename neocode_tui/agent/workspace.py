"""The folder the agent works in, and the one rule about paths: they stay inside it.

Every tool resolves the model's paths here, so the check lives in exactly one place.
Paths are resolved through symlinks before they are compared, which catches ``..``,
absolute paths and links that lead out with one test.

A check on a name is only as good as the moment it was made: a symlink swapped into a
folder after the check would send the open somewhere else. So files are then opened
from the workspace root one folder at a time, each relative to the last one's
descriptor and with ``O_NOFOLLOW``: the resolved path has no symlinks in it, and if one
has appeared since, the open fails instead of following it. Writes go to a new file
renamed over the old one, which also breaks a hard link instead of writing through it.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from neocode_tui.agent.buffers import Buffers
from neocode_tui.errors import NeoCodeError
from neocode_tui.paths import home_folders

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_LINK_ERRORS = {errno.ELOOP, errno.EMLINK, errno.ENOTDIR}
"""What an ``O_NOFOLLOW`` open of a symlink fails with (``EMLINK`` on the BSDs)."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class PathOutsideWorkspace(ValueError):
    """The model asked for a path the agent may not touch."""


SYSTEM_FOLDERS = frozenset(map(Path, (
    "/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32",
    "/media", "/mnt", "/nix", "/opt", "/proc", "/run", "/sbin", "/snap", "/srv", "/sys",
    "/tmp", "/usr", "/usr/bin", "/usr/lib", "/usr/local", "/usr/share", "/var", "/var/lib",
    "/var/tmp", "/Applications", "/Library", "/System", "/Users", "/Volumes", "/private",
)))
"""Folders no project is: a workspace there would be the whole system's files."""


class WorkspaceTooWide(NeoCodeError):
    """A session asked for in the home folder, ``/`` or a system folder (bad usage)."""

    exit_code = 2


def refuse_too_wide(root: Path) -> None:
    """``WorkspaceTooWide`` for a folder too wide to be a workspace. There everything the
    agent may touch without asking (every file to read, the sandbox's writable folder)
    would be the user's keys, shell history and other projects, or the system's files;
    narrowing it silently would leave the agent working somewhere else than was asked."""
    root = root.resolve()
    if root in SYSTEM_FOLDERS:
        what = "the root of the file system" if root == Path("/") else "a system folder"
    elif root in home_folders():
        what = "your home folder"
    elif any(home.is_relative_to(root) for home in home_folders()):
        what = "a folder that holds your home folder"
    else:
        return
    raise WorkspaceTooWide(
        f"{root} is {what}: too wide to work in, since the agent could read and change "
        "every file in it (keys, shell history, other projects). Start neocode in a "
        "project folder instead (in an editor: open the project)"
    )


Hidden = Callable[[Path], "str | None"]
"""The check of what may reach the model (``Workspace.hidden``): why a resolved path's
content may not, or None."""


def _nothing_hidden(_: Path) -> str | None:
    return None


def withheld(shown: str, why: str) -> str:
    """The line the model gets where a file's content was left out by the one check
    (``Workspace.hidden``), so it knows the file exists and why it cannot see it."""
    return f"[{shown} withheld: {why}]"


class Workspace:
    def __init__(self, root: Path, buffers: Buffers | None = None) -> None:
        self.root = root.resolve()
        self.buffers = buffers
        """The editor's copies of the files, when a front end has them (see ``buffers``)."""
        self.added: list[Path] = []
        """More folders the user let the tools into (``--add-dir``)."""
        self.hidden: Hidden = _nothing_hidden
        """Why the content of the resolved path may not reach the model (a deny rule), or
        None: the one check every way a file's content goes to the model passes (read and
        search tools, @-mentions, memory-file imports, skills, custom commands, MCP
        resources that are local files), each leaving it out with a ``withheld`` line."""

    def add(self, folder: Path) -> Path:
        """Let the tools into ``folder`` too; ``WorkspaceTooWide`` (bad usage) for one that
        is not a folder or is too wide to work in."""
        resolved = folder.expanduser().resolve()
        if not resolved.is_dir():
            raise WorkspaceTooWide(f"--add-dir {folder}: no such folder")
        refuse_too_wide(resolved)
        if not any(resolved.is_relative_to(root) for root in self.roots):
            self.added.append(resolved)
        return resolved

    @property
    def roots(self) -> list[Path]:
        return [self.root, *self.added]

    def root_of(self, path: Path) -> Path:
        """The folder a resolved path is in: the workspace root or an added folder."""
        return max((root for root in self.roots if path.is_relative_to(root)), key=lambda r: len(r.parts),
                   default=self.root)

    def resolve(self, path: str) -> Path:
        """The absolute, symlink-free path for ``path``, or ``PathOutsideWorkspace``."""
        if not path.strip():
            raise PathOutsideWorkspace("the path is empty")
        if "\0" in path:
            raise PathOutsideWorkspace(f"{printable(path)!r} has a NUL character in it")
        try:
            candidate = Path(path).expanduser()
        except RuntimeError:  # "~someone" with no such user
            raise PathOutsideWorkspace(f"{path!r} is outside the workspace ({self.root})") from None
        if not candidate.is_absolute():
            candidate = self.root / candidate
        try:
            resolved = candidate.resolve()
        except RuntimeError:  # a symlink loop
            raise PathOutsideWorkspace(f"{printable(path)!r} is a symlink loop") from None
        if any(resolved.is_relative_to(root) for root in self.roots):
            return resolved
        lexical = Path(*_normalise(candidate.parts))
        if any(lexical.is_relative_to(root) for root in self.roots):
            raise PathOutsideWorkspace(
                f"{printable(path)!r} is a symlink that leads outside the workspace "
                f"({self.root}); only files inside it can be used"
            )
        raise PathOutsideWorkspace(
            f"{printable(path)!r} is outside the workspace ({self.root}); "
            "only paths inside it can be used"
        )

    def relative(self, path: Path) -> str:
        """How a resolved path is shown to the model and the user: relative, with ``/``,
        escaped where it is not UTF-8 or not printable (``caf\\xe9.txt``). A path in an
        added folder is shown whole."""
        if not path.is_relative_to(self.root):
            return printable_name(path.as_posix())
        relative = path.relative_to(self.root).as_posix()
        return printable_name(relative) if relative != "." else "."

    @contextmanager
    def open_dir(self, path: Path, *, create: bool = False) -> Iterator[int]:
        """A descriptor for the folder ``path`` (resolved, inside the root), reached one
        component at a time without following a symlink; ``create`` makes missing ones."""
        root = self.root_of(path)
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for part in path.relative_to(root).parts:
                if create:
                    with suppress(FileExistsError):
                        os.mkdir(part, dir_fd=fd)
                try:
                    child = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    if exc.errno in _LINK_ERRORS and _is_link(part, fd):
                        raise self._swapped(path) from None
                    raise
                os.close(fd)
                fd = child
            yield fd
        finally:
            os.close(fd)

    def open_file(self, path: Path) -> tuple[int, os.stat_result]:
        """An open descriptor for the regular file ``path`` and its status.

        Only a regular file is opened, and without blocking: opening a FIFO for reading
        would wait forever for a writer. ``NotARegularFile`` names what it is instead.
        """
        with self.open_dir(path.parent) as folder:
            before = os.stat(path.name, dir_fd=folder, follow_symlinks=False)
            if stat.S_ISLNK(before.st_mode):
                raise self._swapped(path)
            _require_regular(before, self.relative(path), path)
            try:
                fd = os.open(
                    path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                    dir_fd=folder,
                )
            except OSError as exc:
                if exc.errno in _LINK_ERRORS:
                    raise self._swapped(path) from None
                raise
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):  # swapped between the stat and the open
            os.close(fd)
            _require_regular(status, self.relative(path), path)
        return fd, status

    def replace_file(self, path: Path, data: bytes) -> None:
        """Give ``path`` the content ``data`` by writing a new file beside it and renaming
        it over: a reader never sees half a file, a hard link to a file elsewhere is
        broken rather than written through, and missing folders are made on the way."""
        with self.open_dir(path.parent, create=True) as folder:
            try:
                old = os.stat(path.name, dir_fd=folder, follow_symlinks=False)
            except FileNotFoundError:
                old = None
            if old is not None and stat.S_ISLNK(old.st_mode):
                raise self._swapped(path)
            if old is not None and not stat.S_ISREG(old.st_mode):
                _require_regular(old, self.relative(path), path)
            if old is not None and not os.access(
                path.name, os.W_OK, dir_fd=folder, follow_symlinks=False
            ):
                raise PermissionError(
                    errno.EACCES, f"{self.relative(path)} is read-only; it was not changed"
                )
            temp = f".{path.name[:100]}.{secrets.token_hex(6)}.neocode-tmp"
            fd = os.open(
                temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o666, dir_fd=folder,
            )
            try:
                with os.fdopen(fd, "wb") as handle:
                    if old is not None:
                        os.fchmod(handle.fileno(), stat.S_IMODE(old.st_mode))
                    handle.write(data)
                os.replace(temp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
            except BaseException:
                with suppress(OSError):
                    os.unlink(temp, dir_fd=folder)
                raise

    def _swapped(self, path: Path) -> PathOutsideWorkspace:
        return PathOutsideWorkspace(
            f"{self.relative(path)} changed while it was being opened (a symlink appeared "
            "on the way to it); nothing was read or written"
        )


class NotARegularFile(OSError):
    """A FIFO, device or socket: reading one may never end, so no tool does."""

    def __init__(self, shown: str, kind: str) -> None:
        super().__init__(errno.EINVAL, f"{shown} is {kind}; only regular files can be used")
        self.kind = kind
        """What it is, in words: "a FIFO (named pipe)", "a device", "a socket"."""


def _require_regular(status: os.stat_result, shown: str, path: Path) -> None:
    mode = status.st_mode
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, f"{shown} is a folder, not a file", str(path))
    kind = (
        "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
        else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket" if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    raise NotARegularFile(shown, kind)


def _is_link(name: str, folder: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return False


def printable(text: str) -> str:
    """``text`` safe to show and send as UTF-8: bytes that were not UTF-8 (decoded by the
    OS as surrogate escapes) become ``\\xe9``, any other lone surrogate ``\\udc00``."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "backslashreplace")
    return raw.decode("utf-8", "backslashreplace")


def printable_name(name: str) -> str:
    """A file name on one line: ``printable``, and control characters (a newline, an
    escape sequence) shown as ``\\x0a``, so a name cannot fake lines of a listing."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", printable(name))


def _normalise(parts: tuple[str, ...]) -> list[str]:
    """``..`` folded away without touching the disk (so links are not followed)."""
    out: list[str] = []
    for part in parts:
        if part == "..":
            if len(out) > 1:
                out.pop()
        elif part != ".":
            out.append(part)
    return out
