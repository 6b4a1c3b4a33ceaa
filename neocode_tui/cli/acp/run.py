"""``neocode acp``'s process: the flags and streams checked, ``initialize`` answered, then
the agent served on stdin and stdout.

The answer to ``initialize`` goes out before the ACP SDK and the core are imported
(``handshake``): an editor waits for it, and they are most of what a start costs.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from neocode_tui.cli.acp.handshake import greet
from neocode_tui.cli.acp.wire import READ_AHEAD_BYTES, JsonRpcLines
from neocode_tui.cli.options import load_from_args
from neocode_tui.deferred import lazy
from neocode_tui.errors import NeoCodeError
from neocode_tui.terminal_text import for_stream

if TYPE_CHECKING:
    from neocode_tui.cli.acp import agent
else:
    agent = lazy("neocode_tui.cli.acp.agent")

log = logging.getLogger("neocode.acp")


def run_acp(args: argparse.Namespace) -> int:
    logging.basicConfig(stream=sys.stderr, format="neocode acp: %(levelname)s: %(message)s")
    log.setLevel(logging.INFO)
    try:
        load_from_args(args, Path.cwd())  # bad flags fail now, not at the first session
    except NeoCodeError as exc:
        print(for_stream(f"neocode: {exc}", sys.stderr), file=sys.stderr)  # it may quote a .env
        return exc.exit_code
    if problem := _streams_problem():
        print(f"neocode acp: {problem}", file=sys.stderr)
        return 2
    protocol_out = os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print must not break the protocol
    try:
        asyncio.run(_serve(args, protocol_out))
    except KeyboardInterrupt:
        return 130
    return 0


def _streams_problem() -> str | None:
    """Why stdin and stdout cannot carry the protocol: an editor starts ``neocode acp`` with
    a pipe (or socket) on each; closed, a terminal or a regular file will not do."""
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
        if stream is None:
            return f"{name} is closed: an editor starts neocode acp with pipes on stdin and stdout"
        mode = os.fstat(stream.fileno()).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)):
            return f"{name} is a file: an editor starts neocode acp with pipes on stdin and stdout"
    return None


async def _serve(args: argparse.Namespace, protocol_out: int) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=READ_AHEAD_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(protocol_out, "wb")
    )
    lines = JsonRpcLines(reader, asyncio.StreamWriter(transport, protocol, reader, loop))
    greeted = await greet(lines)
    await agent.serve(args, lines, greeted)
