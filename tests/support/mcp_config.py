"""The ``mcp.json`` files a user writes: their own, or a project's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from neocode_tui.paths import config_dir


def write_config(path: Path, servers: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}, indent=2))
    return path


def user_config(servers: dict[str, Any]) -> Path:
    return write_config(config_dir() / "mcp.json", servers)
