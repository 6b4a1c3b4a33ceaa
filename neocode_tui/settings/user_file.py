"""The user's own settings file: ``config.toml`` in the config folder.

Every setting by its field name (``model = "gpt-4o"``), and named profiles, each a
provider, URL and model (or any other settings) to switch between::

    profile = "local"

    [profiles.local]
    provider = "openai"
    base_url = "http://127.0.0.1:8080/v1"
    model = "qwen"

The file is the user's, so it is trusted like their environment. Its problems (bad TOML
with its line, unknown keys by name) are all reported; none is a traceback.
"""

from __future__ import annotations

import difflib
import os
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from neocode_tui.paths import config_dir
from neocode_tui.settings.model import Settings

CONFIG_FILE = "config.toml"
MAX_CONFIG_FILE = 256 * 1024
FIELDS = frozenset(Settings.model_fields)


def config_file() -> Path:
    return config_dir() / CONFIG_FILE


@dataclass
class UserFile:
    path: Path
    exists: bool = False
    values: dict[str, Any] = field(default_factory=dict)
    """Settings at the top of the file."""
    profiles: dict[str, dict[str, Any]] = field(default_factory=dict)
    profile: str | None = None
    """The profile the file itself picks (``profile = "local"``)."""
    problems: list[str] = field(default_factory=list)
    keys: Any = None
    """The ``[keys]`` table as written: the app reads it (``neocode_tui.tui.keymap``), and
    its problems never stop a run."""


def read_user_file(path: Path | None = None) -> UserFile:
    """The file at ``path`` (``config.toml`` in the config folder); a missing file is an
    empty one."""
    path = path or config_file()
    loaded = UserFile(path)
    data = _parse(path, loaded)
    if data is None:
        return loaded
    loaded.exists = True
    for key, value in data.items():
        if key == "profile":
            if isinstance(value, str):
                loaded.profile = value
            else:
                loaded.problems.append(f"{path}: profile must be a profile's name in quotes")
        elif key == "profiles":
            _read_profiles(value, loaded)
        elif key in ("permissions", "lsp"):
            continue  # rules (agent.permissions.sources) and language servers (agent.lsp)
        elif key == "keys":
            loaded.keys = value
        elif _known(key, path, loaded.problems, extra=("profile", "profiles", "keys", "lsp")):
            loaded.values[key] = value
    return loaded


def _read_profiles(tables: Any, loaded: UserFile) -> None:
    if not isinstance(tables, dict):
        loaded.problems.append(f"{loaded.path}: profiles must be tables, like [profiles.local]")
        return
    for name, table in tables.items():
        if not isinstance(table, dict):
            loaded.problems.append(
                f"{loaded.path}: profiles.{name} must be a table, like [profiles.{name}]"
            )
            continue
        where = f"{loaded.path} [profiles.{name}]"
        loaded.profiles[name] = {
            key: value for key, value in table.items() if _known(key, where, loaded.problems)
        }


def _known(key: str, where: object, problems: list[str], extra: tuple[str, ...] = ()) -> bool:
    if key in FIELDS:
        return True
    close = difflib.get_close_matches(key, [*FIELDS, *extra], n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    problems.append(f"{where}: unknown setting {key!r}{hint}")
    return False


def _parse(path: Path, loaded: UserFile) -> dict[str, Any] | None:
    """The file's tables, or None (missing, or a problem recorded)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        loaded.problems.append(f"{path} is not a regular file: remove it or replace it with one")
        return None
    if info.st_size > MAX_CONFIG_FILE:
        loaded.problems.append(f"{path} is larger than {MAX_CONFIG_FILE // 1024} KiB: not a settings file")
        return None
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except tomllib.TOMLDecodeError as exc:
        loaded.problems.append(f"{path}: not valid TOML: {exc}")
    except (OSError, UnicodeDecodeError) as exc:
        loaded.problems.append(f"{path} cannot be read: {exc}")
    return None
