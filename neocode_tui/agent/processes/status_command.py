"""The user's status-line command: Claude Code's JSON on stdin, its first line back.

It runs for the screen, so it is bounded: ``timeout`` seconds and ``LIMIT`` bytes, then it
is stopped with everything it started. Its environment holds none of NeoCode's keys and its
line is scrubbed of every secret the run knows. Of the escape sequences it prints only
colours (SGR) survive; any other control is shown as its stand-in (``terminal_text``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neocode_tui.agent.processes.tree import ProcessTree, in_child
from neocode_tui.agent.sandbox import secret_free
from neocode_tui.terminal_text import visible

if TYPE_CHECKING:
    from neocode_tui.known_secrets import Secrets

LIMIT = 16 * 1024
"""Bytes read of its output: the first line is what counts."""
_COLOUR = re.compile(r"(\x1b\[[0-9;:]*m)")
"""A colour (SGR) sequence; captured, so splitting on it keeps it between the pieces."""
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: cursor moves, erases, modes
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, clipboard, links
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC
    r"|\x1b[ -/]*[0-~]"  # the short ones
)


@dataclass(frozen=True)
class StatusOutput:
    """What to draw: ``line`` (ANSI colours only) or, when the command failed, ``problem``."""

    line: str = ""
    problem: str = ""


def first_line(output: bytes) -> str:
    """The first non-empty line, with colours kept and every other control made visible."""
    text = output.decode("utf-8", "replace").replace("\r\n", "\n")
    line = next((part for part in text.split("\n") if part.strip()), "")
    parts = _COLOUR.split(line)  # text, colour, text, ...: colours at the odd places
    return "".join(part if at % 2 else visible(_SEQUENCE.sub("", part)) for at, part in enumerate(parts))


async def run_status_command(
    command: str, data: Mapping[str, Any], *, cwd: Path, secrets: Secrets, timeout: float
) -> StatusOutput:
    """Run ``command`` once with ``data`` as JSON on stdin."""
    tree = ProcessTree()
    env = tree.environment(secret_free(os.environ, secrets.keys))
    try:
        process = await asyncio.create_subprocess_exec(
            "/bin/sh", "-c", command, cwd=cwd, env=env, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True, preexec_fn=in_child,
        )
    except OSError as exc:
        return StatusOutput(problem=f"could not start: {exc.strerror or exc}")
    tree.started(process.pid)
    try:
        async with asyncio.timeout(timeout):
            output = await _exchange(process, json.dumps(data, ensure_ascii=False).encode())
            code = await process.wait()
    except TimeoutError:
        return StatusOutput(problem=f"took over {timeout:g} s and was stopped")
    finally:
        tree.kill()
    if code != 0:
        return StatusOutput(problem=f"exit code {code}")
    line = secrets(first_line(output))
    return StatusOutput(line=line) if line.strip() else StatusOutput(problem="printed nothing")


async def _exchange(process: asyncio.subprocess.Process, data: bytes) -> bytes:
    """Feed stdin and read stdout at once: a script that prints before reading all of its
    input must not wait on a full pipe."""
    stdin, stdout = process.stdin, process.stdout
    assert stdin is not None and stdout is not None

    async def feed() -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            stdin.write(data)
            await stdin.drain()
        stdin.close()

    async def read() -> bytes:
        output = b""
        while len(output) < LIMIT and (chunk := await stdout.read(LIMIT - len(output))):
            output += chunk
        return output

    _, output = await asyncio.gather(feed(), read())
    return output
