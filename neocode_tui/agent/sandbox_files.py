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
to ``shared/agents``), the one list of them being ``protected_files.link_targets``. A hard
link to a protected file made before the command cannot be found without reading the
whole workspace, and the command cannot make one: a link across the read-only mount fails.
``.git`` is git's, with rules of its own (a commit must work): the sandbox's git part.
"""

from __future__ import annotations

import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from neocode_tui.protected_files import GIT_FOLDER, link_targets, protected_entries

SET_ASIDE = ".from-sandbox-"


def read_only_mounts(workspace: Path) -> list[str]:
    """bubblewrap's arguments binding each protected entry of the root read-only. For a
    symlink, and for one inside a protected folder, what it leads to in the workspace is
    (outside, it is read-only already; the root's links are checked after the command)."""
    paths = [workspace / name for name, entry in _guarded(workspace).items() if entry.link is None]
    paths += [path for path in link_targets(workspace, without=frozenset({GIT_FOLDER})).paths
              if path.exists() and path not in paths]
    return [arg for path in paths for arg in ("--ro-bind", str(path), str(path))]


class CreatedEntries:
    """The protected entries of the root as a command starts; ``set_aside`` renames
    each that is new after it, or that replaced one (a symlink is put back)."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.before = _guarded(workspace)

    def set_aside(self) -> list[tuple[str, str]]:
        """(name, new name) of each protected entry the command made."""
        moved: list[tuple[str, str]] = []
        for name, entry in _guarded(self.workspace).items():
            old = self.before.get(name)
            if old == entry:
                continue
            new_name = f"{name}{SET_ASIDE}{secrets.token_hex(3)}"
            try:
                os.rename(self.workspace / name, self.workspace / new_name)
                if old is not None and old.link is not None:
                    os.symlink(old.link, self.workspace / name)
            except OSError:
                continue
            moved.append((name, new_name))
        return moved


def set_aside_note(moved: list[tuple[str, str]]) -> str:
    """The line a command's result gets when some of what it made was set aside, or ""."""
    if not moved:
        return ""
    listed = ", ".join(f"{name} (now {new_name})" for name, new_name in moved)
    return (f"[the sandbox renamed what this command created that NeoCode, git or another "
            f"agent would read at start: {listed}. Create such a file with write_file, "
            "which asks the user]")


@dataclass(frozen=True)
class _Entry:
    inode: tuple[int, int]
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
        found[name] = _Entry((info.st_dev, info.st_ino), link)
    return found
