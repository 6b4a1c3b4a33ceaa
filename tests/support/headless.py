"""``neocode`` as a user runs it headless (``-p``): a real subprocess whose model is the
loopback server of a ``Dialect``."""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.support.dialects import API_KEY, Dialect
from tests.support.waits import PATIENCE
from tests.support.warm_neocode import warm_command

NEOCODE = str(Path(sys.executable).parent / "neocode")
"""The installed ``neocode`` command, next to this interpreter."""


@dataclass
class Result:
    code: int
    out: str
    err: str


async def neocode(dialect: Dialect, cwd: Path, *args: str, stdin: bytes | None = None) -> Result:
    process = await start(dialect, cwd, *args, stdin=stdin is not None)
    out, err = await asyncio.wait_for(process.communicate(stdin), PATIENCE)
    assert process.returncode is not None
    return Result(process.returncode, out.decode(), err.decode())


async def start(dialect: Dialect, cwd: Path, *args: str, stdin: bool = False, **settings: str):
    return await asyncio.create_subprocess_exec(
        *await warm_command(), *args, cwd=cwd, env=headless_env(dialect, **settings),
        stdin=asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )


def headless_env(dialect: Dialect, **settings: str) -> dict[str, str]:
    """The environment of a user whose neocode talks to ``dialect``'s loopback server."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        NEOCODE_PROVIDER=dialect.name,
        NEOCODE_BASE_URL=dialect.server.url + ("/v1" if dialect.name == "openai" else ""),
        NEOCODE_MODEL="test-model",
        NEOCODE_MAX_RETRIES="0",
        NEOCODE_CACHE_CONTROL="false",  # on by default: tests/agent/test_caching_session.py
        OPENAI_API_KEY=API_KEY,
        ANTHROPIC_API_KEY=API_KEY,
    )
    env.update(settings)
    return env


def session_files(data: Path) -> list[Path]:
    return sorted((data / "sessions").glob("*.jsonl"))


async def run(dialect: Dialect, workspace: Path, *args: str, prompt: str = "go", **env: str) -> Result:
    """``neocode ARGS -p PROMPT`` in ``workspace``, ``env`` added to its environment."""
    process = await start(dialect, workspace, *args, "-p", prompt, **env)
    out, err = await process.communicate()
    assert process.returncode is not None
    return Result(process.returncode, out.decode(), err.decode())
