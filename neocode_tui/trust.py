"""Which folders the user trusts: only there may the workspace's own files grant power.

A cloned repository is not its reader: until the user trusts its folder, its ``.env`` may
not raise the approval mode, pick the provider or where requests (and keys) go, and its
MCP servers and hooks may not start. The answer is the user's, so it lives in the user's
config folder, never in the workspace.

Trust covers the files as the user saw them, not whatever they become: a command run in
the folder later (by the model, by a build) could write a new ``.mcp.json`` whose server
would then start, unsandboxed, at the next launch. So trusting a folder also records a
fingerprint (SHA-256) of each file trust gates (``TRUST_GATED``: ``.env``, ``.mcp.json``,
``.neocode/hooks.json``) as it is then; a file that is new or changed since is treated as
a folder not trusted (its settings ignored, its servers and hooks not started, each said),
until the user trusts the folder again, which the app asks. A worktree NeoCode made in a
trusted folder (``neocode --worktree``) is inside it, so trusted the same, and its gated
files are trusted when they hold what the project's trusted ones held.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from neocode_tui.paths import config_dir, worktree_project, write_private
from neocode_tui.protected_files import TRUST_GATED

TRUST_FILE = "trusted-folders.json"
NOT_TRUSTED = "this folder is not trusted"


def trust_file() -> Path:
    return config_dir() / TRUST_FILE


def _read() -> dict[str, Any]:
    """The file's content; an unreadable or garbled file trusts nothing."""
    try:
        data = json.loads(trust_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def trusted_folders() -> list[Path]:
    """The folders the user trusted."""
    folders = _read().get("folders")
    if not isinstance(folders, list):
        return []
    return [Path(folder) for folder in folders if isinstance(folder, str)]


def _fingerprints(data: dict[str, Any]) -> dict[str, str]:
    files = data.get("files")
    if not isinstance(files, dict):
        return {}
    return {path: value for path, value in files.items() if isinstance(value, str)}


def is_trusted(folder: Path) -> bool:
    """Trusting a folder trusts what is inside it, as a clone's subfolders are the clone."""
    resolved = folder.resolve()
    return any(resolved.is_relative_to(trusted) for trusted in trusted_folders())


def fingerprint(raw: bytes) -> str:
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def untrusted_reason(workspace: Path, name: str, raw: bytes | None) -> str:
    """Why the workspace's file ``name`` (one of ``TRUST_GATED``), holding ``raw``, may not
    grant what trust grants; "" when it may (``raw`` None: there is no such file). ``raw``
    is what the caller read and will use, so what is checked is what runs."""
    if not is_trusted(workspace):
        return NOT_TRUSTED
    if raw is None:
        return ""
    recorded = _fingerprints(_read())
    folder = workspace.resolve()
    keys = [folder / name]
    if (project := worktree_project(folder)) is not None:
        keys.append(project / name)  # a worktree holds what its project's trusted file held
    if any(recorded.get(str(key)) == fingerprint(raw) for key in keys):
        return ""
    return f"{name} is new or changed since you trusted this folder"


def trust(folder: Path) -> None:
    """Remember that the user trusts ``folder`` with its gated files as they are now
    (written whole, then renamed into place)."""
    folder = folder.resolve()
    data = _read()
    folders = {str(path) for path in trusted_folders()}
    folders.add(str(folder))
    files = _fingerprints(data)
    for name in TRUST_GATED:
        path = folder / name
        raw = _content(path)
        if raw is None:  # none (one made later is new), or unusable anyway
            files.pop(str(path), None)
        else:
            files[str(path)] = fingerprint(raw)
    content = {"folders": sorted(folders), "files": dict(sorted(files.items()))}
    write_private(trust_file(), (json.dumps(content, indent=1) + "\n").encode())


def refresh_fingerprint(folder: Path, name: str, before: bytes | None, after: bytes) -> None:
    """NeoCode itself changed the gated file ``name`` for the user (a permission rule they
    saved or removed): its fingerprint follows, but only from the content they trusted,
    so a change made behind their back is not blessed with it."""
    folder = folder.resolve()
    if not is_trusted(folder):
        return
    data = _read()
    files = _fingerprints(data)
    key = str(folder / name)
    if files.get(key) != (fingerprint(before) if before is not None else None):
        return
    files[key] = fingerprint(after)
    content = {"folders": sorted(str(path) for path in trusted_folders()),
               "files": dict(sorted(files.items()))}
    write_private(trust_file(), (json.dumps(content, indent=1) + "\n").encode())


def _content(path: Path) -> bytes | None:
    """A regular file's bytes; None for no file or anything else (a FIFO would block)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        try:
            return handle.read()
        except OSError:
            return None
