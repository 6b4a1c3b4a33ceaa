"""Reading MCP server configs: ``.mcp.json`` in the workspace and ``mcp.json`` in the
user's config folder, in the format Claude Code users already have::

    {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"], "env": {}},
                    "docs": {"type": "http", "url": "https://…/mcp", "headers": {}}}}

Each server is checked on its own, so one bad entry costs that server only; every problem
becomes a message naming the file (and the line, for broken JSON), never an exception.
In the user's own file, ``${VAR}`` and ``${VAR:-default}`` are expanded from the environment,
as Claude Code does, so a token can stay out of the file. A workspace's file gets no
expansion at all: the environment holds the user's keys, and a repository that could write
``${OPENAI_API_KEY}`` into a URL or header of its choosing would be sent them. A server there
that asks for a variable is not used, and the problem says where such a server belongs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from neocode_tui.json_files import MISSING, JsonRead, read_json
from neocode_tui.known_secrets import argument_secrets, named_secrets
from neocode_tui.paths import config_dir
from neocode_tui.protected_files import MCP_FILE
from neocode_tui.redact import url_secrets
from neocode_tui.trust import untrusted_reason

WORKSPACE_FILE = MCP_FILE
USER_FILE = "mcp.json"
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
"""What a provider does not allow in a tool name (so in a server's part of one)."""

Source = Literal["workspace", "user", "client"]
"""Where a server was configured: the folder's file, the user's, or the editor that started
``neocode acp`` (for that session)."""
CLIENT = Path("the editor")
"""What a server the editor gave was configured in (it has no file)."""


class StdioServer(BaseModel):
    """A server NeoCode starts as a subprocess and talks to over its stdin and stdout."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    type: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)


class HttpServer(BaseModel):
    """A server already running somewhere, reached over streamable HTTP."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    type: Literal["http"]
    url: str
    headers: dict[str, str] = Field(default_factory=dict)

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        if not url.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return url


ServerConfig = StdioServer | HttpServer


class _File(BaseModel):
    model_config = ConfigDict(defer_build=True)

    mcpServers: dict[str, Any]  # noqa: N815 (the key users' files have)


@dataclass(frozen=True)
class ServerEntry:
    name: str
    config: ServerConfig
    source: Source
    path: Path


@dataclass(frozen=True)
class Configs:
    servers: list[ServerEntry]
    problems: list[str]
    """One line per file or server that could not be used, each naming its file."""
    untrusted: str = ""
    """Why the workspace's servers may not start (``neocode_tui.trust``); "": they may."""


def server_secrets(entries: Iterable[ServerEntry]) -> list[str]:
    """The credentials these servers are configured with (``known_secrets`` says which):
    in their headers, environment, arguments and URLs."""
    found: list[str] = []
    for entry in entries:
        config = entry.config
        if isinstance(config, HttpServer):
            found += url_secrets(config.url)
            pairs = config.headers.items()
        else:
            found += argument_secrets(config.args)
            pairs = config.env.items()
        found += [secret for name, value in pairs for secret in named_secrets(name, value)]
    return found


def user_config_file() -> Path:
    return config_dir() / USER_FILE


def load_configs(workspace: Path, client: Configs | None = None) -> Configs:
    """The user's servers, then the workspace's, then the editor's (``client``); a later
    one replaces an earlier server of the same name (the more specific setup wins)."""
    servers: dict[str, ServerEntry] = {}
    problems: list[str] = []
    untrusted = ""
    for source, path in (("user", user_config_file()), ("workspace", workspace / WORKSPACE_FILE)):
        read = read_json(path)
        entries, found = _entries(path, source, read)  # type: ignore[arg-type]
        if source == "workspace" and entries:
            untrusted = untrusted_reason(workspace, WORKSPACE_FILE, read.raw)
        problems += found
        servers.update((entry.name, entry) for entry in entries)
    if client is not None:
        problems += client.problems
        servers.update((entry.name, entry) for entry in client.servers)
    usable: dict[str, ServerEntry] = {}
    for entry in servers.values():
        other = usable.get(safe_name(entry.name))
        if other is not None:
            problems.append(
                f"{entry.path}: server {entry.name!r}: its tools would be named like those of "
                f"{other.name!r} ({other.path}); rename one"
            )
        else:
            usable[safe_name(entry.name)] = entry
    return Configs(list(usable.values()), problems, untrusted)


def safe_name(name: str) -> str:
    """A name as it may appear in a tool name: letters, digits, ``_`` and ``-``."""
    return UNSAFE.sub("_", name)


def _entries(path: Path, source: Source, read: JsonRead) -> tuple[list[ServerEntry], list[str]]:
    data, problem, _ = read
    if problem is not None or data is MISSING:
        return [], [problem] if problem else []
    try:
        servers = _File.model_validate(data).mcpServers
    except ValidationError:
        return [], [f'{path}: expected {{"mcpServers": {{"name": {{...}}}}}}']
    entries: list[ServerEntry] = []
    problems: list[str] = []
    for name, raw in servers.items():
        if not name.strip():
            problems.append(f"{path}: a server has an empty name")
            continue
        try:
            entries.append(ServerEntry(name, _server(raw, expand=source == "user"), source, path))
        except ValueError as exc:
            problems.append(f"{path}: server {name!r}: {describe(exc)}")
    return entries, problems


def _server(raw: Any, *, expand: bool) -> ServerConfig:
    if not isinstance(raw, dict):
        raise ValueError("expected an object with a command or a url")
    raw = _expand(raw) if expand else _refuse_variables(raw)
    kind = raw.get("type", "stdio")
    if kind in ("http", "streamable-http", "streamableHttp"):
        return HttpServer.model_validate({**raw, "type": "http"})
    if kind == "stdio":
        return StdioServer.model_validate(raw)
    if kind == "sse":
        raise ValueError("type 'sse' (the old HTTP+SSE transport) is not supported; use type 'http'")
    raise ValueError(f"unknown type {kind!r}: use 'stdio' (a command) or 'http' (a url)")


def _expand(value: Any) -> Any:
    """``${VAR}`` / ``${VAR:-default}`` in every string; an unset VAR without a default is
    an error, since a server started with a literal "${TOKEN}" would fail more obscurely."""
    if isinstance(value, str):
        def replace(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name in os.environ:
                return os.environ[name]
            if default is not None:
                return default
            raise ValueError(f"${{{name}}} is used but not set in the environment")

        return VARIABLE.sub(replace, value)
    if isinstance(value, list):
        return [_expand(item) for item in value]
    if isinstance(value, dict):
        return {key: _expand(item) for key, item in value.items()}
    return value


def _refuse_variables(value: Any) -> Any:
    """``value`` unchanged when no string in it names a variable; else why it cannot be used."""
    for text in _strings(value):
        match = VARIABLE.search(text)
        if match:
            raise ValueError(
                f"{match.group()} is not expanded in a folder's {WORKSPACE_FILE}: only your own "
                f"{user_config_file()} may use your environment variables; put the server there"
            )
    return value


def _strings(value: Any) -> list[str]:
    """Every string value in a JSON value (what ``_expand`` would expand)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    return []


def describe(error: ValueError) -> str:
    """A config error in a line: each field that is wrong and why."""
    if isinstance(error, ValidationError):
        return "; ".join(
            f"{'.'.join(str(part) for part in item['loc']) or 'server'}: {item['msg']}"
            for item in error.errors(include_url=False)
        )
    return str(error)
