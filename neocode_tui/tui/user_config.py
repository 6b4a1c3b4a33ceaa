"""What the app remembers between runs (the theme, vi mode), kept apart from ``Settings``.

``Settings`` come from the environment, ``.env`` and ``config.toml``, which the user edits;
this file is written by the app itself, so it stays apart from them (rewriting the user's
TOML would lose their comments and layout) and is never mixed with secrets. It is read
without pydantic: the first frame's theme comes from it, before pydantic is imported.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from neocode_tui.paths import config_dir, write_private


@dataclass
class UserConfig:
    theme: str | None = None
    vim: bool = False


def app_state_file() -> Path:
    return config_dir() / "settings.json"


def load_user_config() -> UserConfig:
    """A missing or damaged file means defaults: a bad file must never stop the app starting."""
    try:
        data = json.loads(app_state_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return UserConfig()
    if not isinstance(data, dict):
        return UserConfig()
    theme = data.get("theme")
    return UserConfig(theme=theme if isinstance(theme, str) else None, vim=data.get("vim") is True)


def save_user_config(config: UserConfig) -> None:
    """Written whole through a temporary file, so a crash never leaves half a file behind."""
    write_private(app_state_file(), (json.dumps(asdict(config), indent=2) + "\n").encode())
