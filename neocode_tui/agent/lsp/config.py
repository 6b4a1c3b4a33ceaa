"""Which language servers a session may start: the built-in ones found on ``PATH``, then
``[lsp.NAME]`` tables of the user's ``config.toml`` and, in a folder the user trusts (as
the file was when they trusted it), of the project's ``.neocode/config.toml``::

    [lsp.python]
    command = ["pylsp"]
    extensions = [".py", ".pyi"]

A table named like a built-in one replaces it; ``disabled = true`` turns one off."""

from __future__ import annotations

import shutil
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from neocode_tui.agent.tools import ToolError
from neocode_tui.protected_files import PROJECT_CONFIG
from neocode_tui.settings.user_file import MAX_CONFIG_FILE, config_file
from neocode_tui.trust import untrusted_reason


class ServerProblem(ToolError):
    """A language server that cannot serve, in words (missing, failed, not allowed to start)."""


class ServerConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    command: tuple[str, ...] = Field(min_length=1)
    """The program and its arguments; it speaks LSP on its stdin and stdout."""
    extensions: tuple[str, ...] = Field(min_length=1)
    """The files it is for, by how their names end (``.py``)."""
    disabled: bool = False


BUILT_IN: dict[str, ServerConfig] = {
    "pyright": ServerConfig(command=("pyright-langserver", "--stdio"), extensions=(".py", ".pyi")),
    "pylsp": ServerConfig(command=("pylsp",), extensions=(".py", ".pyi")),
    "typescript": ServerConfig(command=("typescript-language-server", "--stdio"),
                               extensions=(".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")),
    "gopls": ServerConfig(command=("gopls",), extensions=(".go",)),
    "rust-analyzer": ServerConfig(command=("rust-analyzer",), extensions=(".rs",)),
}
"""Used when the program is on ``PATH``, in this order: the first for an extension wins."""


@dataclass
class ServerConfigs:
    servers: dict[str, ServerConfig] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    """The project's servers not started, and why (an untrusted folder)."""

    def for_file(self, path: Path) -> str | None:
        """The name of the server for ``path``, if one is configured."""
        suffix = path.suffix.lower()
        for name, server in self.servers.items():
            if suffix in server.extensions:
                return name
        return None


def load_server_configs(workspace: Path, *, trusted: bool, user_file: Path | None = None) -> ServerConfigs:
    """The servers for ``workspace``; ``trusted``: the user trusts it for this run."""
    found = ServerConfigs()
    tables: dict[str, Any] = {}
    for name, server in BUILT_IN.items():
        if shutil.which(server.command[0]):
            tables[name] = server.model_dump()
    user = user_file or config_file()
    _merge(tables, _tables(user, _read(user, found.problems), found.problems))
    project = workspace / PROJECT_CONFIG
    raw = _read(project, found.problems)
    if raw is not None:
        project_tables = _tables(project, raw, found.problems)
        reason = "" if trusted else untrusted_reason(workspace, PROJECT_CONFIG, raw)
        if reason and project_tables:
            found.ignored.append(f"{PROJECT_CONFIG} language servers not started ({', '.join(project_tables)}): "
                                 f"{reason}")
        elif not reason:
            _merge(tables, project_tables)
    for name, table in tables.items():
        try:
            server = ServerConfig.model_validate(table)
        except ValidationError as exc:
            found.problems.append(f"[lsp.{name}]: {_first_error(exc)}")
            continue
        if not server.disabled:
            found.servers[name] = server.model_copy(
                update={"extensions": tuple(_dotted(ext) for ext in server.extensions)})
    return found


def _merge(tables: dict[str, Any], new: dict[str, Any]) -> None:
    """``new``'s tables over what is there (a built-in one's fields fill in what they leave out)."""
    for name, table in new.items():
        base = tables.get(name) or (BUILT_IN[name].model_dump() if name in BUILT_IN else {})
        tables[name] = {**base, **table}


def _read(path: Path, problems: list[str]) -> bytes | None:
    try:
        if path.stat().st_size > MAX_CONFIG_FILE:
            problems.append(f"{path} is too large to be a settings file")
            return None
        return path.read_bytes()
    except OSError:
        return None


def _tables(path: Path, raw: bytes | None, problems: list[str]) -> dict[str, Any]:
    if raw is None:
        return {}
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        problems.append(f"{path}: not valid TOML: {exc}")
        return {}
    tables = data.get("lsp", {})
    if not isinstance(tables, dict) or not all(isinstance(value, dict) for value in tables.values()):
        problems.append(f"{path}: lsp must be tables, like [lsp.python]")
        return {}
    return tables


def _dotted(extension: str) -> str:
    extension = extension.lower()
    return extension if extension.startswith(".") else "." + extension


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {error['msg']}" if where else str(error["msg"])
