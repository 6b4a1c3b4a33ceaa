"""``neocode replay FILE.sse``: recorded SSE bytes through the live pipeline, no network.

The bytes go through the scripted provider, so the same SSE decoder, dialect parser and
collector as a live reply: what replay prints is what a live request would have produced.
This module stays free of Textual so the command starts fast.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import cast

from neocode_tui.collector import CollectedTurn, EventCallback, collect
from neocode_tui.chat import ChatRequest
from neocode_tui.events import StreamEvent
from neocode_tui.providers.scripted import ScriptedProvider, SSEReplay, detect_dialect
from neocode_tui.vocabulary import DialectName


def read_recording(path: str, dialect: str = "auto") -> SSEReplay:
    """The recording at ``path`` with its dialect resolved. Raises ``OSError`` when unreadable."""
    data = Path(path).read_bytes()
    name = detect_dialect(data) if dialect == "auto" else cast(DialectName, dialect)
    return SSEReplay(data, name)


async def replay(
    recording: SSEReplay, on_event: EventCallback | None = None, rate: float | None = None
) -> CollectedTurn:
    provider = ScriptedProvider([recording], model="replay", rate=rate)
    return await collect(provider.stream(ChatRequest(model="replay", messages=[])), on_event)


def run_replay(args: argparse.Namespace) -> int:
    try:
        recording = read_recording(args.file, args.dialect)
    except OSError as exc:
        print(f"neocode replay: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2

    def print_event(event: StreamEvent) -> None:
        print(json.dumps(event.model_dump()), flush=True)

    turn = asyncio.run(replay(recording, print_event if args.events else None, args.rate))
    if args.json:
        print(json.dumps(turn.to_replay_json()))
    elif not args.events:
        print(turn.text)
        print(_summary(recording, turn), file=sys.stderr)
    return 0


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
