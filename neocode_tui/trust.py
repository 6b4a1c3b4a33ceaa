"""Which folders the user trusts: only there may the workspace's own files grant power.

A cloned repository is not its reader: until the user trusts its folder, its ``.env`` may
not raise the approval mode, pick the provider or where requests (and keys) go, and later
its MCP servers and hooks may not start. The answer is the user's, so it lives in the
user's config folder, never in the workspace.
"""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.paths import config_dir, write_private

TRUST_FILE = "trusted-folders.json"


def trust_file() -> Path:
    return config_dir() / TRUST_FILE


def trusted_folders() -> list[Path]:
    """The folders the user trusted; an unreadable or garbled file trusts nothing."""
    try:
        data = json.loads(trust_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    folders = data.get("folders") if isinstance(data, dict) else None
    if not isinstance(folders, list):
        return []
    return [Path(folder) for folder in folders if isinstance(folder, str)]


def is_trusted(folder: Path) -> bool:
    """Trusting a folder trusts what is inside it, as a clone's subfolders are the clone."""
    resolved = folder.resolve()
    return any(resolved.is_relative_to(trusted) for trusted in trusted_folders())


def trust(folder: Path) -> None:
    """Remember that the user trusts ``folder`` (written whole, then renamed into place)."""
    folders = {str(path) for path in trusted_folders()}
    folders.add(str(folder.resolve()))
    write_private(trust_file(), (json.dumps({"folders": sorted(folders)}, indent=1) + "\n").encode())
