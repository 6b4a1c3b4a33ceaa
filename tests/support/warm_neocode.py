"""The ``neocode`` command for tests that are about what a run does, not about the process
starting: a real process per run, forked from one warm interpreter per test worker
(``warm_server.py``), so the suite pays NeoCode's imports once instead of hundreds of times.
Tests about start-up itself (its cost, its imports, a terminal) start the installed
``neocode``."""

from __future__ import annotations

import asyncio
import atexit
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.waits import PATIENCE

HERE = Path(__file__).resolve().parent
_socket: list[str] = []


def _start_server() -> str:
    folder = tempfile.mkdtemp(prefix="neocode-warm-")
    path = f"{folder}/socket"
    server = subprocess.Popen(
        [sys.executable, str(HERE / "warm_server.py"), path],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )
    atexit.register(_stop, server)
    assert server.stdout is not None
    ready = server.stdout.readline()
    assert ready == b"ready\n", "the warm neocode server did not start"
    return path


def _stop(server: subprocess.Popen[bytes]) -> None:
    """Ends the server when the worker ends, and waits for it (its CPU counts)."""
    assert server.stdin is not None
    server.stdin.close()
    try:
        server.wait(PATIENCE)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


async def warm_command() -> list[str]:
    """The words that run ``neocode`` warm: append its arguments."""
    if not _socket:
        path = await asyncio.wait_for(asyncio.to_thread(_start_server), PATIENCE)
        if not _socket:
            _socket.append(path)
    return [sys.executable, "-I", "-S", str(HERE / "warm_launcher.py"), _socket[0]]
