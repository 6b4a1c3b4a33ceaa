"""The workspace's protected files in the sandbox: read-only where they are, set aside
where a command makes them.

A protected entry of the workspace root (``neocode_tui.protected_files``) that exists is
bound read-only over itself: it cannot be written, removed or renamed, and a protected
folder cannot get new files. One that does not exist cannot be guarded that way, as
bubblewrap would leave an empty mount point of that name in the user's folder. So after
each command the root is looked at again, and what the command made there is renamed to
``NAME.from-sandbox-XXXXXX``: kept for the user to look at, read by nobody (NeoCode's own
readers would not start it anyway, see ``neocode_tui.trust``). For a protected entry that
is a symlink (``AGENTS.md`` leading to ``docs/agents.md``) what it leads to is bound, and
if a command replaces the link, the new entry is set aside the same way and the link put
back; so is what a symlink inside a protected folder leads to (``.claude/agents`` leading
to a folder elsewhere in the workspace), the one list of them being ``protected_files.link_targets``. A hard
link to a protected file made before the command cannot be found without reading the
whole workspace, and the command cannot make one: a link across the read-only mount fails.

What the root held as a command starts is also written to a record in NeoCode's data folder
(out of every command's sight), locked for as long as the command runs and removed once
its entries are set aside. A NeoCode killed mid-command (SIGKILL, a crash, a power cut)
leaves its record behind, so the next session in the workspace sets aside what that
command made before it loads anything (``recover``), and says so; a record still locked is
another NeoCode's running command, whose entries so far are set aside the same way. A
background command's entries are also set aside before each request while it runs
(``CreatedEntries.set_aside``, again), not only when it ends.
``.git`` is git's, with rules of its own (a commit must work): the sandbox's git part.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import stat
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from neocode_tui.agent.sandbox.git import record_stem
from neocode_tui.paths import open_private
from neocode_tui.protected_files import GIT_FOLDER, link_targets, protected_entries

SET_ASIDE = ".from-sandbox-"
RECORD = ".entries.json"
"""The end of a record's name: what a running command's workspace root held at its start."""
Moved = list[tuple[str, str]]
"""(name, new name) of each protected entry set aside."""


def read_only_mounts(workspace: Path) -> list[str]:
    """bubblewrap's arguments binding each protected entry of the root read-only. For a
    symlink, and for one inside a protected folder, what it leads to in the workspace is
    (outside, it is read-only already; the root's links are checked after the command)."""
    paths = [workspace / name for name, entry in _guarded(workspace).items() if entry.link is None]
    paths += [path for path in link_targets(workspace, without=frozenset({GIT_FOLDER})).paths
              if path.exists() and path not in paths]
    return [arg for path in paths for arg in ("--ro-bind", str(path), str(path))]


class CreatedEntries:
    """The protected entries of the root as a command starts, recorded on disk until
    ``finish``; ``set_aside`` renames each that is new since, or that replaced one (a
    symlink is put back)."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.before = _guarded(workspace)
        self._record = _open_record(workspace, self.before)
        """Its path, and the file holding its lock while the command runs."""

    def set_aside(self) -> Moved:
        """What the command has made so far, set aside (again and again while it runs)."""
        return _set_aside(self.workspace, self.before)

    def finish(self) -> Moved:
        """The command has ended: what it made is set aside, and its record goes."""
        moved = self.set_aside()
        record, self._record = self._record, None
        if record is not None:
            path, file = record
            with suppress(OSError):
                os.unlink(path)
            file.close()  # its lock too, after the name is gone: nobody takes it for dead
        return moved


def recover(workspace: Path) -> Moved:
    """Set aside what the sandboxed commands recorded for ``workspace`` made: those of a
    NeoCode that was killed before it could (their records are removed), and those another
    NeoCode runs now. Called before a session loads anything from the workspace."""
    workspace = workspace.resolve()
    stem = record_stem(workspace)
    try:
        names = sorted(stem.parent.glob(f"{stem.name}-*{RECORD}"), key=_started)
    except OSError:
        return []
    moved: Moved = []
    for path in names:
        try:
            with open(path) as record:
                before = _read_record(record)
                if before is not None:
                    moved += _set_aside(workspace, before)
                _remove_if_dead(path, record)
        except OSError:
            continue  # ended meanwhile: its own NeoCode set its entries aside
    return moved


def recovered_note(moved: Moved) -> str:
    """What a session tells the user of the entries ``recover`` set aside, or ""."""
    if not moved:
        return ""
    return (f"set aside what sandboxed commands made in this workspace that no NeoCode had "
            f"checked yet (one was killed mid-command, or another runs one now): {_listed(moved)}. "
            "None of it is loaded; look at it, and rename back what is yours")


def _set_aside(workspace: Path, before: dict[str, _Entry]) -> Moved:
    moved: Moved = []
    for name, entry in _guarded(workspace).items():
        old = before.get(name)
        if old == entry:
            continue
        new_name = f"{name}{SET_ASIDE}{secrets.token_hex(3)}"
        try:
            os.rename(workspace / name, workspace / new_name)
            if old is not None and old.link is not None:
                os.symlink(old.link, workspace / name)
        except OSError:
            continue
        moved.append((name, new_name))
    return moved


def _open_record(workspace: Path, before: dict[str, _Entry]) -> tuple[Path, IO[str]] | None:
    """The record of ``before``, written whole, locked and then put in place (a reader
    never finds one unlocked before its command ended); None where it cannot be written."""
    stem = record_stem(workspace.resolve())
    final = stem.with_name(f"{stem.name}-{secrets.token_hex(8)}{RECORD}")
    partial = final.with_name(f".{final.name}.tmp")
    entries = {name: {"inode": entry.inode, "link": entry.link} for name, entry in before.items()}
    try:
        record = open_private(partial, "x")
    except OSError:
        return None
    try:
        json.dump({"before": entries}, record)
        record.flush()
        fcntl.flock(record, fcntl.LOCK_EX)
        os.rename(partial, final)
    except OSError:
        record.close()
        with suppress(OSError):
            os.unlink(partial)
        return None
    return final, record


def _read_record(record: IO[str]) -> dict[str, _Entry] | None:
    """The entries a record holds; None for one spoiled (not NeoCode's writing)."""
    try:
        data: Any = json.load(record)
        return {str(name): _Entry(tuple(entry["inode"]) if entry["inode"] else None, entry["link"])
                for name, entry in data["before"].items()}
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _remove_if_dead(path: Path, record: IO[str]) -> None:
    """Remove the record when its NeoCode is gone (its lock is free), and it is still the
    file of that name."""
    try:
        fcntl.flock(record, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return  # its command runs: its NeoCode removes it at the end
    if os.stat(path).st_ino == os.fstat(record.fileno()).st_ino:
        os.unlink(path)


def _started(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _listed(moved: Moved) -> str:
    return ", ".join(f"{name} (now {new_name})" for name, new_name in moved)


def set_aside_note(moved: Moved) -> str:
    """The line a command's result gets when some of what it made was set aside, or ""."""
    if not moved:
        return ""
    return (f"[the sandbox renamed what this command created that NeoCode, git or another "
            f"agent would read at start: {_listed(moved)}. Create such a file with write_file, "
            "which asks the user]")


@dataclass(frozen=True)
class _Entry:
    inode: tuple[int, ...] | None
    """Its device and inode; None for a symlink, which is the same where it leads."""
    link: str | None
    """Where it leads, for a symlink."""


def _guarded(workspace: Path) -> dict[str, _Entry]:
    found: dict[str, _Entry] = {}
    for name in protected_entries(workspace):
        if name.casefold() == GIT_FOLDER or SET_ASIDE in name:
            continue
        path = workspace / name
        try:
            info = os.lstat(path)
            link = os.readlink(path) if stat.S_ISLNK(info.st_mode) else None
        except OSError:
            continue
        found[name] = _Entry(None if link is not None else (info.st_dev, info.st_ino), link)
    return found
