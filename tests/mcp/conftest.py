"""The MCP tests' servers: real ones installed from PyPI (time, git) over stdio, small
scripts for behaviour no real server shows on demand (dying, hanging, forking), and the
streamable-HTTP test server in a process of its own on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from neocode_tui.agent.mcp import McpManager
from neocode_tui.paths import config_dir

VENV_BIN = Path(sys.executable).parent
TIME_SERVER = {"command": str(VENV_BIN / "mcp-server-time")}
ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = Path(__file__).parent / "servers"


def script_server(name: str, *args: str) -> dict[str, Any]:
    """A stdio server from ``tests/mcp/servers``, run by this interpreter."""
    return {"command": sys.executable, "args": [str(SCRIPTS / f"{name}.py"), *args]}


def write_config(path: Path, servers: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}, indent=2))
    return path


def user_config(servers: dict[str, Any]) -> Path:
    return write_config(config_dir() / "mcp.json", servers)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
async def managers() -> AsyncIterator[list[McpManager]]:
    """Managers a test makes; all stopped at its end, whatever happened."""
    made: list[McpManager] = []
    yield made
    for manager in made:
        await manager.aclose()


@contextmanager
def running_http_server(record: Path | None = None) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The streamable-HTTP test server in a process of its own: its URL and process.
    ``record``: a file it appends each request's path, query and headers to."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.mcp.servers.http_server", *([str(record)] if record else [])],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    assert process.stdout is not None
    port = process.stdout.readline().strip()
    try:
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def http_server() -> Iterator[str]:
    """The URL of the test server most tests share (one process for the whole run)."""
    with running_http_server() as (url, _):
        yield url
