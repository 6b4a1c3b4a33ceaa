"""Where NeoCode keeps its files: one answer for every module that reads or writes them.

``NEOCODE_CONFIG_DIR`` and ``NEOCODE_DATA_DIR`` override the platform's folders (tests,
portable installs), so nothing a test runs can touch the user's own settings or sessions.
Every file NeoCode writes in them goes through ``open_private`` or ``write_private``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, BinaryIO, Literal, TextIO, overload

from neocode_tui.deferred import lazy

if TYPE_CHECKING:
    import platformdirs
else:
    platformdirs = lazy("platformdirs")  # not needed where NEOCODE_*_DIR names the folder


def config_dir() -> Path:
    """Settings the app writes, user themes, the user's own ``AGENTS.md``."""
    override = os.environ.get("NEOCODE_CONFIG_DIR")
    return Path(override) if override else Path(platformdirs.user_config_dir("neocode"))


def data_dir() -> Path:
    """Saved sessions."""
    override = os.environ.get("NEOCODE_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir("neocode"))


def folder_problem() -> str | None:
    """Why NeoCode's data or config folder cannot be one (a file stands at its path or on
    the way to it); None when each exists as a folder or can be made."""
    for variable, folder in (("NEOCODE_DATA_DIR", data_dir()), ("NEOCODE_CONFIG_DIR", config_dir())):
        existing = next((path for path in (folder, *folder.parents) if path.exists()), None)
        if existing is not None and not existing.is_dir():
            which = "data" if variable == "NEOCODE_DATA_DIR" else "config"
            where = f" (from {variable})" if os.environ.get(variable) else ""
            shown = "it" if existing == folder else f"{existing}, on its way,"
            return f"the {which} folder {folder}{where} cannot be used: {shown} is a file"
    return None


WORKTREES = Path(".neocode") / "worktrees"
"""Where ``neocode --worktree`` makes its worktrees, under the repository's top folder."""


def worktree_project(folder: Path) -> Path | None:
    """The project a NeoCode worktree (``<project>/.neocode/worktrees/NAME``) was made in;
    None for any other folder."""
    if folder.parent.parent.name == WORKTREES.parts[0] and folder.parent.name == WORKTREES.parts[1]:
        return folder.parent.parent.parent
    return None


FILE_MODE = 0o600
FOLDER_MODE = 0o700
"""NeoCode's files hold every prompt, answer and command output: the user's alone, whatever
the umask (one that already existed open to others is closed to them when NeoCode writes)."""
_FLAGS = {
    "x": os.O_WRONLY | os.O_CREAT | os.O_EXCL,
    "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
    "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
}


def private_folder(folder: Path) -> Path:
    """``folder``, made if missing (0700), with it and every folder between it and NeoCode's
    data or config folder (that one too) closed to others. Folders above are made as usual."""
    root = next((r for r in (data_dir(), config_dir()) if folder.is_relative_to(r)), folder)
    root.parent.mkdir(parents=True, exist_ok=True)
    parts = folder.relative_to(root).parts
    for depth in range(len(parts) + 1):
        path = root.joinpath(*parts[:depth])
        try:
            path.mkdir(mode=FOLDER_MODE)
        except FileExistsError:
            if not path.is_dir():
                raise NotADirectoryError(f"{path} is not a folder") from None
        _tighten(path.stat().st_mode, path.chmod)
    return folder


@overload
def open_private(path: Path, mode: Literal["xb", "ab", "wb"], **options: Any) -> BinaryIO: ...
@overload
def open_private(path: Path, mode: Literal["x", "a", "w"], **options: Any) -> TextIO: ...
def open_private(path: Path, mode: str, **options: Any) -> IO[Any]:
    """``open(path, mode)`` for a file only the user may read (made 0600, closed to others
    when it existed), in a private folder. ``mode``: ``x``, ``a`` or ``w``, ``b`` for bytes."""
    private_folder(path.parent)
    fd = os.open(path, _FLAGS[mode.replace("b", "")] | os.O_CLOEXEC, FILE_MODE)
    try:
        _tighten(os.fstat(fd).st_mode, lambda mode: os.fchmod(fd, mode))
        return os.fdopen(fd, mode.replace("x", "w"), **options)
    except BaseException:
        os.close(fd)
        raise


def _tighten(mode: int, chmod: Callable[[int], None]) -> None:
    """Take away what others may do; what the user may do stays (a folder the user made
    read-only stays read-only). New ones are made 0600 / 0700, which a umask cannot widen."""
    if mode & 0o077:
        chmod(stat.S_IMODE(mode) & 0o700)


def write_private(path: Path, data: bytes) -> None:
    """The whole file, private, written beside it and renamed into place: a crash never
    leaves half a file, and a reader never sees one."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open_private(partial, "wb") as file:
            file.write(data)
        partial.replace(path)
    except BaseException:
        with suppress(OSError):
            partial.unlink(missing_ok=True)
        raise


def home_folders() -> list[Path]:
    """The user's home folders, resolved: ``HOME`` and the account's, when they differ
    (a command reads either); never ``/`` (an account without a home)."""
    candidates = [os.environ.get("HOME", ""), os.path.expanduser("~")]
    try:
        import pwd  # not on Windows

        candidates.append(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError):  # no passwd entry (a container's arbitrary uid)
        pass
    found: list[Path] = []
    for candidate in candidates:
        if not candidate:
            continue
        try:
            home = Path(candidate).resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        if home != Path("/") and home.is_dir() and home not in found:
            found.append(home)
    return found
