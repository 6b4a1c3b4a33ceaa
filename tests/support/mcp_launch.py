"""How the MCP tests start their servers: real ones installed from PyPI (time, git) over
stdio, the scripts in ``tests/support/mcp_servers`` for behaviour no real server shows on
demand (dying, hanging, forking), and the streamable-HTTP test server in a process of its
own on 127.0.0.1."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

VENV_BIN = Path(sys.executable).parent
TIME_SERVER = {"command": str(VENV_BIN / "mcp-server-time")}
ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = Path(__file__).parent / "mcp_servers"


def script_server(name: str, *args: str) -> dict[str, Any]:
    """A stdio server from ``tests/support/mcp_servers``, run by this interpreter."""
    return {"command": sys.executable, "args": [str(SCRIPTS / f"{name}.py"), *args]}


@contextmanager
def running_http_server(record: Path | None = None) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The streamable-HTTP test server in a process of its own: its URL and process.
    ``record``: a file it appends each request's path, query and headers to."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.mcp_servers.http_server", *([str(record)] if record else [])],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    assert process.stdout is not None
    port = process.stdout.readline().strip()
    try:
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        process.kill()
        process.wait()
