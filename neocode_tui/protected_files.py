"""The workspace's files that make a program start or change what is trusted: one list.

git runs ``.git/hooks`` and what ``.git/config`` names; NeoCode starts the servers of
``.mcp.json`` and the hooks of ``.neocode/hooks.json``, takes its settings from ``.env``
and its instructions from ``AGENTS.md`` (``CLAUDE.md``); Claude Code and other agents read commands,
sub-agents, skills and hook settings from ``.claude/`` and ``.agents/``; direnv runs
``.envrc``; most project tooling reads ``.env.*``. A write to any of them is a command
run later, so the same list serves three guards: a sandboxed command cannot change them
(``agent.sandbox``), a file tool's write to one always asks (``agent.approvals``), and
the ones trust gates grant nothing new once they change (``trust``).

Names compare case-insensitively (``.GIT/config`` is ``.git/config`` on macOS) and at any
depth (a submodule's ``.git``, the ``.mcp.json`` of a subfolder NeoCode may start in).

Links do not move a file out of the list: a path is protected when it
is as named, at any step of following the links on the way (``.claude`` a link to another
folder, ``AGENTS.md`` one to ``docs/guide.md``), or where it leads (``docs/x.md`` a link to
``AGENTS.md``); and so is what a protected entry of the root leads to (``link_targets``:
``docs/guide.md`` itself, the folder a link inside ``.claude/`` names) and, for a file with
other hard links, the same inode.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePath

ENV_FILE = ".env"
MCP_FILE = ".mcp.json"
HOOKS_FILE = ".neocode/hooks.json"
INSTRUCTIONS_FILE = "AGENTS.md"
NEOCODE_SETTINGS = ".neocode/settings.json"
CLAUDE_SETTINGS = ".claude/settings.json"
"""Permission rules and hooks: a project's allow rules count, and its hooks run, only as
the user trusted the file."""
CLAUDE_LOCAL_SETTINGS = ".claude/settings.local.json"
"""Where Claude Code writes the rules a user allowed for one project: read like ``CLAUDE_SETTINGS``."""
PROJECT_CONFIG = ".neocode/config.toml"
"""The project's language servers (``[lsp.NAME]``): started only as the user trusted the file."""
FALLBACK_INSTRUCTIONS_FILE = "CLAUDE.md"
"""Read for a folder's instructions where it has no ``AGENTS.md``."""

GIT_FOLDER = ".git"
PROTECTED_FOLDERS = frozenset({GIT_FOLDER, ".neocode", ".claude", ".agents"})
"""Everything under a folder of these names (and a file of the name: a worktree's ``.git``)."""
PROTECTED_FILES = frozenset({MCP_FILE.casefold(), INSTRUCTIONS_FILE.casefold(),
                             FALLBACK_INSTRUCTIONS_FILE.casefold(), ".envrc", ENV_FILE})
"""Files of these names, and every ``.env.*``."""
MAX_LINK_HOPS = 40
"""Links followed on the way to one path (the kernel's own limit)."""
MAX_WALKED = 5000
"""Entries of the root's protected folders looked at for links out of them."""
UNWALKED = frozenset({"objects", "lfs"})
"""Folders of ``.git`` with data only: no links that matter, and maybe millions of files."""
TRUST_GATED = (ENV_FILE, MCP_FILE, HOOKS_FILE, NEOCODE_SETTINGS, CLAUDE_SETTINGS, CLAUDE_LOCAL_SETTINGS,
               PROJECT_CONFIG)
"""What a folder's trust lets grant power (settings, servers, hooks): each counts as
trusted only with the content it had when the user trusted the folder."""


def is_protected(relative: PurePath) -> bool:
    """Whether the path ``relative`` (to the workspace root) is one of the protected."""
    parts = [part.casefold() for part in relative.parts]
    if PROTECTED_FOLDERS.intersection(parts):
        return True
    return bool(parts) and protected_name(parts[-1])


def protected_name(name: str, *, folder: bool = False) -> bool:
    """Whether an entry named ``name`` is protected wherever it is. A folder with a file's
    name is not (a virtualenv made as ``.env`` is nobody's settings)."""
    name = name.casefold()
    if name in PROTECTED_FOLDERS:
        return True
    return not folder and (name in PROTECTED_FILES or name.startswith(ENV_FILE + "."))


def protected_entries(folder: Path) -> list[str]:
    """The names of ``folder``'s own entries that are protected (none if it cannot be read)."""
    try:
        with os.scandir(folder) as entries:
            return sorted(
                entry.name for entry in entries
                if protected_name(entry.name, folder=entry.is_dir(follow_symlinks=False))
            )
    except OSError:
        return []


def way_to(root: Path, named: str) -> list[Path]:
    """Every path met going from ``root`` to ``named`` (relative to it, or absolute): the
    path as named, then the whole path again after each symlink on the way is replaced by
    what it leads to, one link at a time, up to where it ends (``..`` folded as it comes)."""
    try:
        start = Path(os.path.normpath(root / Path(named).expanduser()))
    except RuntimeError:  # "~someone" with no such user: resolving it fails anyway
        return []
    met = [start]
    current, rest = Path(start.anchor), list(start.parts[1:])
    hops = 0
    while rest and hops < MAX_LINK_HOPS:
        candidate = current / rest.pop(0)
        try:
            target = Path(os.readlink(candidate))
        except OSError:  # not a link, or not there (yet)
            current = candidate
            continue
        hops += 1
        after = Path(os.path.normpath(current / target))
        current, rest = Path(after.anchor), [*after.parts[1:], *rest]
        met.append(current.joinpath(*rest))
    return met


@dataclass
class LinkTargets:
    """What the root's protected entries lead to: written there, they change too."""

    paths: list[Path] = field(default_factory=list)
    """Resolved, inside the root: everything under each is protected."""
    inodes: set[tuple[int, int]] = field(default_factory=set)
    """(device, inode) of the protected files that have other hard links."""

    def reach(self, path: Path) -> bool:
        """Whether writing the resolved ``path`` would change a protected entry."""
        if any(path.is_relative_to(target) for target in self.paths):
            return True
        try:
            info = os.lstat(path)
        except OSError:
            return False
        return info.st_nlink > 1 and (info.st_dev, info.st_ino) in self.inodes


def link_targets(root: Path, without: frozenset[str] = frozenset()) -> LinkTargets:
    """Where the protected entries of ``root`` (but those named in ``without``, case-folded)
    lead inside it: each that is a symlink, and each symlink in a protected folder (looked
    at to ``MAX_WALKED`` entries)."""
    found = LinkTargets()
    budget = [MAX_WALKED]
    for name in protected_entries(root):
        if name.casefold() not in without:
            _look_at(root, root / name, found, budget)
    return found


def _look_at(root: Path, path: Path, found: LinkTargets, budget: list[int]) -> None:
    budget[0] -= 1
    try:
        info = os.lstat(path)
    except OSError:
        return
    if stat.S_ISLNK(info.st_mode):
        target = path.resolve()
        if target.is_relative_to(root) and target != root:
            found.paths.append(target)
    elif stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        found.inodes.add((info.st_dev, info.st_ino))
    elif stat.S_ISDIR(info.st_mode) and path.name not in UNWALKED:
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    if budget[0] <= 0:
                        return
                    _look_at(root, Path(entry.path), found, budget)
        except OSError:
            return


def protected_path(root: Path, path: Path) -> bool:
    """Whether ``path`` is protected: relative to ``root`` where inside it, else every
    component of it is looked at (an added folder's ``.git``)."""
    relative = path.relative_to(root) if path.is_relative_to(root) else PurePath(*path.parts[1:])
    return is_protected(relative)


def protected_way(root: Path, named: str) -> bool:
    """Whether a path named ``named`` is protected at any step of ``way_to`` it."""
    return any(protected_path(root, path) for path in way_to(root, named))
