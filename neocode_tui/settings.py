"""Settings from their sources, in order, with every problem reported at once.

Flags win over the user's environment, which wins over the workspace's ``.env``, which
wins over the defaults. The workspace is not the user: unless the user trusted its folder
(``neocode_tui.trust``), its ``.env`` may set only what grants no power (the model name,
the theme), and each line it may not set is reported, so nothing is ignored silently.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dotenv import dotenv_values
from pydantic import ValidationError

from neocode_tui.config import Settings
from neocode_tui.errors import SettingsError
from neocode_tui.trust import is_trusted

WORKSPACE_ENV = ".env"
MAX_ENV_FILE = 256 * 1024
HARMLESS = frozenset({"NEOCODE_MODEL", "NEOCODE_THEME"})
"""What an untrusted workspace may still set: choices that send nothing anywhere new."""
TIGHTENING = {
    "NEOCODE_SANDBOX": frozenset({"workspace-write", "read-only"}),
    "NEOCODE_SANDBOX_NETWORK": frozenset({"0", "f", "false", "n", "no", "off"}),
}
"""Values an untrusted workspace may also set: they only take power away (the user's own
environment and flags still win), never the sandbox off or the network on."""


@dataclass
class LoadedSettings:
    settings: Settings
    trusted: bool
    ignored: list[str] = field(default_factory=list)
    """One line per workspace setting that was not applied, and why."""
    ignored_names: list[str] = field(default_factory=list)
    """The variables those lines name (``NEOCODE_APPROVAL``, ...)."""


@dataclass
class TrustRequest:
    """An untrusted workspace wanted to set ``names``; ``settings_when_trusted`` gives the
    settings once the user trusts it (``SettingsError`` if its values are bad)."""

    names: list[str]
    ignored: list[str]
    settings_when_trusted: Callable[[], Settings]


def _aliases() -> dict[str, str]:
    """Each setting's variable name (``NEOCODE_MODEL``) to its field name (``model``)."""
    return {
        str(info.validation_alias): name
        for name, info in Settings.model_fields.items()
        if info.validation_alias
    }


def load_settings(
    workspace: Path, flags: Mapping[str, Any] | None = None, *, trusted: bool | None = None
) -> LoadedSettings:
    """The effective settings for a run in ``workspace``; ``SettingsError`` lists every
    bad value with where it came from. ``trusted`` overrides the remembered answer
    (``--trust`` trusts the folder for one run)."""
    trusted = is_trusted(workspace) if trusted is None else trusted
    aliases = _aliases()
    sources: dict[str, str] = {}
    values: dict[str, Any] = {}
    ignored: list[str] = []
    ignored_names: list[str] = []
    problems: list[str] = []

    env_file = workspace / WORKSPACE_ENV
    for variable, value in _read_env_file(env_file, problems).items():
        name = aliases.get(variable)
        if name is None or value in (None, ""):
            continue
        if not trusted and not _harmless(variable, value):
            ignored_names.append(variable)
            ignored.append(
                f"{variable} in {env_file} was ignored: this folder is not trusted "
                "(trust it when neocode asks, or pass --trust)"
            )
            continue
        values[name], sources[name] = value, str(env_file)
    for variable, name in aliases.items():
        value = os.environ.get(variable)
        if value:
            values[name], sources[name] = value, f"the environment ({variable})"
    for name, value in (flags or {}).items():
        if value is not None:
            values[name], sources[name] = value, f"--{name.replace('_', '-')}"

    try:
        # Only these values, validated once: nothing else is read here.
        settings = Settings.model_validate(values)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            name = str(error["loc"][0]) if error["loc"] else ""
            value = values.get(name)
            shown = "" if name.endswith("api_key") else f" {value!r}"
            problems.append(f"{sources.get(name, name)}:{shown}: {error['msg']}")
        settings = None
    if problems or settings is None:
        raise SettingsError(problems)
    return LoadedSettings(settings, trusted, ignored, ignored_names)


def _harmless(variable: str, value: str) -> bool:
    return variable in HARMLESS or value.strip().lower() in TIGHTENING.get(variable, ())


def _read_env_file(path: Path, problems: list[str]) -> dict[str, str | None]:
    """The workspace's ``.env`` if it is a regular file of sane size; never a FIFO or a
    link out of the workspace (it would be read as the workspace's, which it is not)."""
    try:
        info = os.lstat(path)
    except OSError:
        return {}
    if not stat.S_ISREG(info.st_mode):
        problems.append(f"{path} is not a regular file: remove it or replace it with one")
        return {}
    if info.st_size > MAX_ENV_FILE:
        problems.append(f"{path} is larger than {MAX_ENV_FILE // 1024} KiB: not a settings file")
        return {}
    try:
        return dict(dotenv_values(path, encoding="utf-8", interpolate=False))
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{path} cannot be read: {exc}")
        return {}

