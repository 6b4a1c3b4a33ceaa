"""``neocode replay FILE.sse``: recorded SSE bytes through the live pipeline, no network.

The bytes go through the scripted provider, so the same SSE decoder, dialect parser and
collector as a live reply: what replay prints is what a live request would have produced.
This module stays free of Textual so the command starts fast. Bad input never ends in a
traceback: a file too big or nested too deep, a closed or vanished stdout each get one line
on stderr and an exit code (2 for a file that cannot be used, 1 for output that cannot be
written).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import json
import os
import sys
from pathlib import Path
from typing import cast

from neocode_tui.chat import ChatRequest
from neocode_tui.collector import CollectedTurn, EventCallback, collect
from neocode_tui.events import StreamEvent
from neocode_tui.providers import ScriptedProvider, SSEReplay, detect_dialect
from neocode_tui.terminal_text import for_stream
from neocode_tui.vocabulary import DialectName

MAX_RECORDING = 16 * 1024 * 1024
"""Bytes a recording may have. One recorded turn is kilobytes; the cap keeps a huge file
from taking several times its size in memory on its way through the parser."""


class _Unwritable(Exception):
    """Stdout is closed or failed: nothing can show the replay."""


def read_recording(path: str, dialect: str = "auto") -> SSEReplay:
    """The recording at ``path`` with its dialect resolved. Raises ``OSError`` when
    unreadable or over ``MAX_RECORDING`` (then ``strerror`` says so)."""
    with Path(path).open("rb") as handle:
        data = handle.read(MAX_RECORDING + 1)
    if len(data) > MAX_RECORDING:
        raise OSError(errno.EFBIG, f"it is larger than {MAX_RECORDING // 2**20} MB, "
                                   "the most a recording may have")
    name = detect_dialect(data) if dialect == "auto" else cast(DialectName, dialect)
    return SSEReplay(data, name)


async def replay(
    recording: SSEReplay, on_event: EventCallback | None = None, rate: float | None = None
) -> CollectedTurn:
    provider = ScriptedProvider([recording], model="replay", rate=rate)
    return await collect(provider.stream(ChatRequest(model="replay", messages=[])), on_event)


def run_replay(args: argparse.Namespace) -> int:
    try:
        if sys.stdout is None:
            raise _Unwritable("stdout is closed")
        recording = read_recording(args.file, args.dialect)
        turn = asyncio.run(replay(recording, _print_event if args.events else None, args.rate))
        if args.json:
            _out(json.dumps(turn.to_replay_json()))
        elif not args.events:
            _out(turn.text)
            _err(_summary(recording, turn))
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as other command-line tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        _err(f"neocode replay: cannot read {args.file}: {exc.strerror or exc}")
        return 2
    except RecursionError:
        _err(f"neocode replay: cannot read {args.file}: its JSON nests too deeply")
        return 2
    except _Unwritable as exc:
        _err(f"neocode replay: cannot write the replay: {exc}")
        return 1
    return 0


def _print_event(event: StreamEvent) -> None:
    _out(json.dumps(event.model_dump()))


def _out(line: str) -> None:
    """One line to stdout, now. A failure to write is not a failure to read the file, so
    it leaves as ``_Unwritable`` rather than as the ``OSError`` that means the latter."""
    try:
        print(for_stream(line, sys.stdout), file=sys.stdout, flush=True)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise _Unwritable(exc.strerror or str(exc)) from None


def _err(line: str) -> None:
    """One line to stderr, if there is one (``print`` to a closed stderr would go to stdout)."""
    if sys.stderr is not None:
        try:
            print(for_stream(line, sys.stderr), file=sys.stderr, flush=True)
        except OSError:
            pass  # nowhere left to say it; the exit code still does


def _summary(recording: SSEReplay, turn: CollectedTurn) -> str:
    parts = [f"{recording.dialect} stream"]
    if turn.tool_calls:
        parts.append(f"{len(turn.tool_calls)} tool call(s): "
                     + ", ".join(call.name for call in turn.tool_calls))
    if turn.dropped_tool_calls:
        parts.append(f"{turn.dropped_tool_calls} nameless call(s) dropped")
    if turn.usage:
        parts.append(f"tokens in {turn.usage.input_tokens} out {turn.usage.output_tokens}")
    if turn.error:
        parts.append(f"error ({turn.error.kind}): {turn.error.message}")
    else:
        parts.append(f"finished: {turn.finish_reason}")
    return "neocode replay: " + " · ".join(parts)
