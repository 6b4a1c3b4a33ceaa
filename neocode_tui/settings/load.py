"""Settings from their sources, in order, with every problem reported at once.

Flags win over the user's environment, which wins over the workspace's ``.env``, which
wins over the user's ``config.toml``, which wins over Claude Code's ``statusLine``
(``claude_status``), which wins over the defaults. The workspace is not
the user: unless the user trusted its folder (``neocode_tui.trust``), its ``.env`` may set
only what grants no power (the model name, the theme), and each line it may not set is
reported, so nothing is ignored silently.

A profile (``[profiles.NAME]`` in ``config.toml``) picked by ``--profile`` (or ``/model
NAME`` in the app) is a choice made for this run, so its values sit just below the flags;
one picked by the file's own ``profile = "NAME"`` sits with the file, above its top level.
"""

from __future__ import annotations

import errno
import io
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError

from neocode_tui.deferred import lazy
from neocode_tui.errors import SettingsError
from neocode_tui.protected_files import ENV_FILE
from neocode_tui.redact import redact_url
from neocode_tui.settings.claude_status import claude_status_line
from neocode_tui.settings.model import Settings
from neocode_tui.settings.user_file import UserFile, read_user_file
from neocode_tui.trust import NOT_TRUSTED, is_trusted, untrusted_reason

if TYPE_CHECKING:
    import dotenv
else:  # after the first frame, or on first use (neocode_tui/deferred.py)
    dotenv = lazy("dotenv")

WORKSPACE_ENV = ENV_FILE
MAX_ENV_FILE = 256 * 1024
HARMLESS = frozenset({"NEOCODE_MODEL", "NEOCODE_THEME"})
"""What an untrusted workspace may still set: choices that send nothing anywhere new."""
TIGHTENING = {
    "NEOCODE_SANDBOX": frozenset({"workspace-write", "read-only"}),
    "NEOCODE_SANDBOX_NETWORK": frozenset({"0", "f", "false", "n", "no", "off"}),
}
"""Values an untrusted workspace may also set: they only take power away (the user's own
environment and flags still win), never the sandbox off or the network on."""
USER_ONLY = frozenset({"NEOCODE_WEB_FETCH_ALLOW", "NEOCODE_ENABLE_TELEMETRY"})
"""What no workspace sets, trusted or not: which of the user's own machines and networks
the agent may reach is the user's word (the repository would point it at their servers)."""


OriginKind = Literal["flag", "profile", "environment", "workspace", "config", "default"]


@dataclass(frozen=True)
class Origin:
    """Where one setting's value came from: ``where`` is the flag, the variable, the file
    or the profile's name."""

    kind: OriginKind
    where: str = ""
    file: str = ""

    def label(self, name: str) -> str:
        """How a problem with the value names its source."""
        if self.kind == "environment":
            return f"the environment ({self.where})"
        if self.kind == "config":
            return f"{name} in {self.where}"
        if self.kind == "profile":
            return f"{name} in [profiles.{self.where}] of {self.file}"
        return self.where or name


DEFAULT = Origin("default")


@dataclass
class LoadedSettings:
    settings: Settings
    trusted: bool
    ignored: list[str] = field(default_factory=list)
    """One line per workspace setting that was not applied, and why."""
    ignored_names: list[str] = field(default_factory=list)
    """The variables those lines name (``NEOCODE_APPROVAL``, ...)."""
    origins: dict[str, Origin] = field(default_factory=dict)
    """Each setting given anywhere, by field name: where its value came from."""
    profile: str | None = None
    profile_from: str = ""
    """What picked the profile: ``--profile``, ``/model`` or the config file."""
    user_file: UserFile | None = None

    def origin(self, name: str) -> Origin:
        return self.origins.get(name, DEFAULT)

    @property
    def profiles(self) -> list[str]:
        return sorted(self.user_file.profiles) if self.user_file else []


@dataclass
class TrustRequest:
    """An untrusted workspace wanted to set ``names``; ``settings_when_trusted`` gives the
    settings once the user trusts it (``SettingsError`` if its values are bad).
    ``programs``: what else its files would run (MCP servers, hooks), looked up only when
    the app is about to ask, after its first frame; nothing wanted, nothing is asked."""

    names: list[str]
    ignored: list[str]
    settings_when_trusted: Callable[[], Settings]
    programs: Callable[[], list[str]] = list

    def wanted(self) -> list[str]:
        return [*self.names, *self.programs()]


@dataclass
class Profiles:
    """The user's profiles, for ``/model NAME`` to switch to; ``load`` gives the settings
    with one picked (``SettingsError`` if they are bad)."""

    names: list[str]
    load: Callable[[str], Settings]


def setting_variables() -> dict[str, str]:
    """Each setting's variable name (``NEOCODE_MODEL``) to its field name (``model``)."""
    return {
        str(info.validation_alias): name
        for name, info in Settings.model_fields.items()
        if info.validation_alias
    }


def load_settings(
    workspace: Path,
    flags: Mapping[str, Any] | None = None,
    *,
    trusted: bool | None = None,
    profile: str | None = None,
    profile_wins: bool = False,
) -> LoadedSettings:
    """The effective settings for a run in ``workspace``; ``SettingsError`` lists every
    bad value with where it came from. ``trusted`` overrides the remembered answer
    (``--trust`` trusts the folder for one run). ``profile`` picks a profile of the user's
    ``config.toml`` (``--profile``); ``profile_wins``: it was picked after the flags were
    (``/model NAME`` in the app), so its values win over theirs too."""
    vouched_for = trusted
    trusted = is_trusted(workspace) if trusted is None else trusted
    layers = _Layers()
    user_file = read_user_file()
    problems = list(user_file.problems)
    chosen = profile or user_file.profile
    profile_values = _profile_values(user_file, chosen, bool(profile), problems)
    claude_ignored: list[str] = []
    claude_values, claude_file = claude_status_line(workspace, vouched_for, claude_ignored)
    layers.put(claude_values, lambda _: Origin("config", claude_file))
    path = str(user_file.path)
    layers.put(user_file.values, lambda _: Origin("config", path))
    in_profile = Origin("profile", chosen or "", path)
    if not profile:
        layers.put(profile_values, lambda _: in_profile)

    env_file = workspace / WORKSPACE_ENV
    workspace_layer = _WorkspaceLayer.read(workspace, vouched_for, problems)
    layers.put(workspace_layer.values, lambda _: Origin("workspace", str(env_file)))
    environment = {name: os.environ.get(variable) or None for variable, name in setting_variables().items()}
    layers.put(environment, lambda name: Origin("environment", str(Settings.model_fields[name].validation_alias)))
    flag_values = dict(flags or {})
    if profile and profile_wins:
        flag_values = {name: value for name, value in flag_values.items() if name not in profile_values}
    if profile:
        layers.put(profile_values, lambda _: in_profile)
    layers.put(flag_values, lambda name: Origin("flag", f"--{name.replace('_', '-')}"))

    settings = layers.validated(problems)
    picked_by = ("/model" if profile_wins else "--profile") if profile else path
    return LoadedSettings(
        settings, trusted, [*workspace_layer.ignored, *claude_ignored], workspace_layer.ignored_names, layers.origins,
        chosen, picked_by if chosen else "", user_file,
    )


@dataclass
class _Layers:
    """The values given so far, by field name, each with where it came from; a later layer
    wins over an earlier one."""

    values: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, Origin] = field(default_factory=dict)

    def put(self, layer: Mapping[str, Any], origin: Callable[[str], Origin]) -> None:
        for name, value in layer.items():
            if value is not None:
                self.values[name], self.origins[name] = value, origin(name)

    def validated(self, problems: list[str]) -> Settings:
        """The settings of these values, validated once (nothing else is read here);
        ``SettingsError`` with every problem, each naming where its value came from."""
        try:
            settings = Settings.model_validate(self.values)
        except ValidationError as exc:
            for error in exc.errors(include_url=False):
                name = str(error["loc"][0]) if error["loc"] else ""
                value = self.values.get(name)
                shown = "" if name.endswith("api_key") else f" {_shown(name, value)!r}"
                label = self.origins[name].label(name) if name in self.origins else name
                problems.append(f"{label}:{shown}: {error['msg']}")
            raise SettingsError(problems) from None
        if problems:
            raise SettingsError(problems)
        return settings


@dataclass
class _WorkspaceLayer:
    """What the workspace's ``.env`` sets that is applied, and a line for each of the rest."""

    values: dict[str, str] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    ignored_names: list[str] = field(default_factory=list)

    @classmethod
    def read(cls, workspace: Path, vouched_for: bool | None, problems: list[str]) -> _WorkspaceLayer:
        """``vouched_for``: the run's own word on trust (``--trust``), else the remembered one
        for these very bytes."""
        env_file = workspace / WORKSPACE_ENV
        env_values, raw = _read_env_file(env_file, problems)
        if vouched_for is None:
            untrusted = untrusted_reason(workspace, WORKSPACE_ENV, raw)
        else:
            untrusted = "" if vouched_for else NOT_TRUSTED
        aliases = setting_variables()
        layer = cls()
        for variable, value in env_values.items():
            name = aliases.get(variable)
            if name is None or value in (None, ""):
                continue
            if variable in USER_ONLY:  # said, but trusting the folder would not change it
                layer.ignored.append(f"{variable} in {env_file} was ignored: only you set it "
                                     "(your environment or config.toml), never a workspace")
                continue
            if untrusted and not _harmless(variable, value):
                layer.ignored_names.append(variable)
                layer.ignored.append(
                    f"{variable} in {env_file} was ignored: {untrusted} "
                    "(trust it when neocode asks, or pass --trust)"
                )
                continue
            layer.values[name] = value
        return layer


def _profile_values(
    user_file: UserFile, name: str | None, asked: bool, problems: list[str]
) -> dict[str, Any]:
    """The settings of profile ``name``; a name with no table is a problem (``asked``: it
    came from the command line or the app, not from the file)."""
    if name is None:
        return {}
    if name in user_file.profiles:
        return user_file.profiles[name]
    known = ", ".join(sorted(user_file.profiles)) or "none yet"
    where = "" if asked else f"profile = {name!r} in {user_file.path}: "
    problems.append(
        f"{where}there is no profile {name!r} in {user_file.path} (profiles: {known}); add a "
        f"[profiles.{name}] table to it"
    )
    return {}


def _shown(name: str, value: Any) -> Any:
    """A bad value as a problem quotes it: a URL without its credentials."""
    return redact_url(value) if name.endswith("base_url") and isinstance(value, str) else value


def _harmless(variable: str, value: str) -> bool:
    return variable in HARMLESS or value.strip().lower() in TIGHTENING.get(variable, ())


def _read_env_file(path: Path, problems: list[str]) -> tuple[dict[str, str | None], bytes | None]:
    """The workspace's ``.env`` and its bytes, if it is a regular file of sane size; never
    a FIFO or a link (it would be read as the workspace's, which it may not be). The values
    come from the bytes returned, so a trust check of those is a check of what is used."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            problems.append(f"{path} is not a regular file: remove it or replace it with one")
        else:
            problems.append(f"{path} cannot be read: {exc.strerror}")
        return {}, None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            problems.append(f"{path} is not a regular file: remove it or replace it with one")
            return {}, None
        try:
            raw = handle.read(MAX_ENV_FILE + 1)
        except OSError as exc:
            problems.append(f"{path} cannot be read: {exc.strerror}")
            return {}, None
    if len(raw) > MAX_ENV_FILE:
        problems.append(f"{path} is larger than {MAX_ENV_FILE // 1024} KiB: not a settings file")
        return {}, None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(f"{path} cannot be read: {exc}")
        return {}, None
    return dict(dotenv.dotenv_values(stream=io.StringIO(text), interpolate=False)), raw
