"""What git reads as configuration or code stays out of a sandboxed command's reach.

Git runs the programs its configuration names (``core.fsmonitor``, ``core.pager``, hooks,
filter drivers) when you, or NeoCode, run ``git status`` later, outside the sandbox. So in
``workspace-write`` a command may write what a commit writes (objects, refs, logs, the index,
``HEAD``, ``COMMIT_EDITMSG``, their lock files), but what says where the repository is and
what git runs is a read-only mount point: in each git folder (the workspace's and its
submodules' under ``.git/modules``) ``config``, ``config.worktree``, ``commondir``,
``hooks/``, ``worktrees/``, ``branches/``, ``remotes/``; a linked worktree's ``.git``
file; and, where they lie in the workspace, the files a configuration includes, the folder
``core.hooksPath`` names, what a hook is a symlink to, and git's global configuration. A
git folder itself is a mount point too, so it cannot be moved away and replaced.

What is missing cannot be bound, and a mount point bubblewrap made itself would stay in the
folder (an empty ``commondir`` even stops git). So while a sandboxed command runs, NeoCode
puts harmless stand-ins where those are missing (``commondir`` naming the folder itself, an
empty ``config``, empty folders), and takes them away once no sandboxed command runs there
any more (``standing_in``). No repository can be made at the workspace root: ``.git`` and
``HEAD`` (which makes a folder a bare repository) are stand-ins too where they are missing.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from neocode_tui.paths import data_dir

STAND_INS: dict[str, bytes | None] = {
    "config": b"", "config.worktree": b"", "commondir": b".\n", "hooks": None,
    "worktrees": None, "branches": None, "remotes": None,
}
"""In a git folder: read-only, and stood in for when missing (None: an empty folder;
``commondir`` of "." names the git folder itself, so git reads it the same). ``info/``
stays writable (``git repack`` writes there): its attributes and excludes name no program,
and the tree's own ``.gitattributes`` can do as much."""
INCLUDE_DEPTH = 10
"""How deep configuration includes are followed (git's own limit)."""

_SECTION = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\](.*)')
_SETTING = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*?)\s*$")


@dataclass
class GitGuard:
    """The mounts that keep git's configuration and code read-only in ``workspace``."""

    workspace: Path
    anchored: list[Path] = field(default_factory=list)
    """Git folders, bound onto themselves: writable, but never moved away."""
    read_only: list[Path] = field(default_factory=list)
    stand_ins: dict[Path, bytes | None] = field(default_factory=dict)
    """Missing paths to fill while a command runs (then read-only like the rest)."""

    def mounts(self) -> list[str]:
        """bubblewrap's arguments, after the workspace's own bind; paths that are still
        missing (no ``standing_in`` around the command) are left out."""
        args: list[str] = []
        for folder in sorted(self.anchored, key=lambda path: len(path.parts)):
            args += ["--bind", str(folder), str(folder)]
        for path in self.read_only:
            if path.exists():
                args += ["--ro-bind", str(path), str(path)]
        return args

    def protect(self, path: Path, stand_in: bytes | None = None, *, make: bool = True) -> None:
        """``path`` read-only when in the workspace; when missing (and ``make``), stood in
        for, or its first missing folder is. A symlink cannot be a mount point: what it
        points to in the workspace is made read-only instead."""
        if path.is_symlink():
            target = _resolved(path)
            if target is not None and target.exists() and target.is_relative_to(self.workspace):
                self.read_only.append(target)
            return
        if not path.is_relative_to(self.workspace):
            return
        if path.exists():
            self.read_only.append(path)
            return
        if not make:
            return
        missing = path
        while not missing.parent.exists():
            missing, stand_in = missing.parent, None
        if missing.parent.is_dir() and not missing.parent.is_symlink():
            self.read_only.append(missing)
            self.stand_ins[missing] = stand_in


def guard(workspace: Path) -> GitGuard:
    """What to protect in ``workspace`` (resolved) as things stand now."""
    plan = GitGuard(workspace)
    dot_git = workspace / ".git"
    if _is_git_dir(dot_git):
        _git_folder(plan, dot_git)
    else:  # a linked worktree's ``.git`` file, something else, or nothing: none to make
        plan.protect(dot_git, None)
        target = _gitfile_target(dot_git)
        if target is not None and target.is_relative_to(workspace) and _is_git_dir(target):
            _git_folder(plan, target)
    plan.protect(workspace / "HEAD", None)
    for config in _global_configs():
        folder = config.name == "git"
        plan.protect(config, None if folder else b"")
        _config_paths(plan, config / "config" if folder else config)
    return plan


def _git_folder(plan: GitGuard, folder: Path, *, top: bool = True) -> None:
    """A git folder's own files; for the workspace's (whose configuration no command
    could have written, unlike a submodule folder's that a command made) also what its
    configuration points to."""
    plan.anchored.append(folder)
    for name, stand_in in STAND_INS.items():
        plan.protect(folder / name, stand_in)
    hooks = folder / "hooks"
    if hooks.is_dir() and not hooks.is_symlink():
        for hook in _entries(hooks):
            if hook.is_symlink():
                plan.protect(hook)
    if top:
        _config_paths(plan, folder / "config")
    for section, key, value in _settings(folder / "config"):
        worktree = _path(folder, value) if (section, key) == ("core", "worktree") else None
        if worktree is not None and (worktree / ".git").is_file():  # a submodule's pointer
            plan.protect(worktree / ".git", make=False)
    for submodule in _submodule_git_dirs(folder / "modules"):
        _git_folder(plan, submodule, top=False)


def _is_git_dir(path: Path) -> bool:
    """What git itself takes for a git folder: ``HEAD``, and objects and refs (here or in
    the folder ``commondir`` names)."""
    if not path.is_dir() or path.is_symlink():
        return False
    shared = (path / "objects").is_dir() and (path / "refs").is_dir()
    return (path / "HEAD").exists() and (shared or (path / "commondir").is_file())


def _submodule_git_dirs(modules: Path) -> Iterator[Path]:
    """Git folders under ``.git/modules`` (a submodule's name may hold slashes)."""
    pending = [modules]
    while pending:
        folder = pending.pop()
        try:
            entries = [entry for entry in folder.iterdir() if entry.is_dir() and not entry.is_symlink()]
        except OSError:
            continue
        for entry in entries:
            if _is_git_dir(entry):
                yield entry
            else:
                pending.append(entry)


def _gitfile_target(dot_git: Path) -> Path | None:
    """The git folder a ``.git`` file (``gitdir: ...``) points to."""
    try:
        if not dot_git.is_file():
            return None
        line = dot_git.read_text(errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    if not line.startswith("gitdir:"):
        return None
    return _resolved(dot_git.parent / line.removeprefix("gitdir:").strip())


def _global_configs() -> list[Path]:
    """Git's own configuration files, as git finds them (only those in the workspace count)."""
    named = os.environ.get("GIT_CONFIG_GLOBAL")
    if named:
        paths = [_path(Path.cwd(), named)]
    else:
        try:
            home = Path.home()
        except (RuntimeError, KeyError):
            return []
        xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
        paths = [_resolved(home / ".gitconfig"), _resolved(xdg / "git")]
    return [path for path in paths if path is not None]


def _config_paths(plan: GitGuard, config: Path, depth: int = 0) -> None:
    """What ``config`` points git at is configuration or code too: the files it includes
    (``[include]``, ``[includeIf ...]``, followed) and ``core.hooksPath``, relative to the
    file's folder (includes) or the work tree (hooks) as git takes them."""
    if depth >= INCLUDE_DEPTH:
        return
    for section, key, value in _settings(config):
        if section in ("include", "includeif") and key == "path":
            if (target := _path(config.parent, value)) is not None:
                plan.protect(target, b"")
                _config_paths(plan, target, depth + 1)
        elif section == "core" and key == "hookspath":
            if (hooks := _path(plan.workspace, value)) is not None:
                plan.protect(hooks, None)


def _settings(config: Path) -> Iterator[tuple[str, str, str]]:
    """``(section, key, value)`` of a git configuration file, sections and keys lowercase."""
    try:
        lines = config.read_text(errors="replace").splitlines()
    except OSError:
        return
    section = ""
    for line in lines:
        if header := _SECTION.match(line):
            section, line = header.group(1).lower(), header.group(2)
        if (setting := _SETTING.match(line)) and (value := setting.group(2).strip().strip('"')):
            yield section, setting.group(1).lower(), value


def _path(base: Path, value: str) -> Path | None:
    """``value`` as git takes a path: ``~`` expanded, relative to ``base``, resolved."""
    path = Path(value)
    try:
        path = path.expanduser()
    except RuntimeError:  # ``~user`` of no such user: git does not find it either
        pass
    return _resolved(path if path.is_absolute() else base / path)


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop
        return None


def _entries(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def record_stem(workspace: Path) -> Path:
    """Where NeoCode keeps what its sandboxed commands in ``workspace`` leave to undo (each
    kind of record adds to the name): its data folder, which no command can see."""
    return data_dir() / "sandbox" / hashlib.sha256(str(workspace).encode()).hexdigest()[:32]


@contextmanager
def standing_in(plan: GitGuard) -> Iterator[None]:
    """Stand-ins for ``plan``'s missing paths while the block runs. They go once no
    sandboxed command of any NeoCode runs in the workspace: each run holds a shared lock;
    a run ending takes it exclusively only when it is the last one, and then removes the
    stand-ins recorded (by every process) as made, those still as they were made."""
    stem = record_stem(plan.workspace)
    stem.parent.mkdir(parents=True, exist_ok=True)
    record = stem.with_name(f"{stem.name}.json")
    with open(stem.with_name(f"{stem.name}.lock"), "a") as users:
        fcntl.flock(users, fcntl.LOCK_SH)  # only ever waits for another run's removal
        with _recorded(record) as made:
            for path, content in plan.stand_ins.items():
                if _make(path, content):
                    made[str(path)] = content.decode() if content is not None else None
        try:
            yield
        finally:
            try:
                fcntl.flock(users, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pass  # another run still needs them; the last one removes them
            else:
                with _recorded(record) as made:
                    for name in sorted(made, key=len, reverse=True):
                        _remove(Path(name), made.pop(name))


def _make(path: Path, content: bytes | None) -> bool:
    try:
        if content is None:
            path.mkdir()
        else:
            with open(path, "xb") as file:
                file.write(content)
    except OSError:  # there by now (another run's, or the user's), or cannot be made
        return False
    return True


def _remove(path: Path, content: str | None) -> None:
    """Remove a stand-in unless something was put in or over it since."""
    try:
        if content is None:
            path.rmdir()
        elif path.is_file() and not path.is_symlink() and path.read_text() == content:
            path.unlink()
    except OSError:
        pass


@contextmanager
def _recorded(record: Path) -> Iterator[dict[str, str | None]]:
    """The stand-ins made and not yet removed, read and written under an exclusive lock."""
    with open(record, "a+") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        file.seek(0)
        made = _parse(file)
        yield made
        file.seek(0)
        file.truncate()
        json.dump(made, file)


def _parse(file: IO[str]) -> dict[str, str | None]:
    try:
        data = json.loads(file.read() or "{}")
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(name): value if isinstance(value, str) else None for name, value in data.items()}
