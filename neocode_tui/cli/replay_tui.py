"""``neocode replay FILE.sse --tui``: a recorded stream played into the real app.

The recording is the scripted model's first reply, so it goes through the same SSE decoder,
collector, agent loop and conversation view as a live answer. A replay must not touch the
user's folder or session history: the agent works in an empty temporary folder, sessions are
written to a temporary data directory, and every later request gets an empty answer.
``--exit-when-done`` leaves once the whole recorded turn is on screen (for benchmarks and CI).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections.abc import AsyncGenerator
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING

from neocode_tui.chat import ChatRequest
from neocode_tui.cli.replay import read_recording
from neocode_tui.events import MessageDone, StreamEvent
from neocode_tui.providers import ScriptedProvider, SSEReplay
from neocode_tui.settings import Settings

if TYPE_CHECKING:
    from neocode_tui.tui import NeoCodeApp

NATURAL_RATE = 50.0
"""Deltas per second of a typical model: what ``--speed 1`` plays at."""


def playback_rate(speed: str, rate: float | None) -> float | None:
    """Deltas per second, or None for as fast as possible. ``--rate`` wins over ``--speed``."""
    if rate is not None:
        return rate if rate > 0 else None
    if speed == "max":
        return None
    factor = float(speed)
    if factor <= 0:
        raise ValueError("--speed must be a positive number or 'max'")
    return NATURAL_RATE * factor


class ReplayProvider(ScriptedProvider):
    """The recording once, then empty answers; ``played`` is set once the recording is spent."""

    name = "replay"

    def __init__(self, recording: SSEReplay, rate: float | None) -> None:
        replies = iter([recording])
        super().__init__(lambda request: next(replies, [MessageDone(finish_reason="stop")]),
                         model="replay", rate=rate)
        self.played = asyncio.Event()

    async def _spent(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        try:
            async with aclosing(super().stream(request)) as events:
                async for event in events:
                    yield event
        finally:  # the collector stops reading at the end of the message
            self.played.set()

    def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        return self._spent(request)


def run_replay_tui(args: argparse.Namespace) -> int:
    try:
        recording = read_recording(args.file, args.dialect)
        rate = playback_rate(args.speed, args.rate)
    except OSError as exc:
        print(f"neocode replay: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"neocode replay: {exc}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="neocode-replay-") as scratch:
        os.environ["NEOCODE_DATA_DIR"] = str(Path(scratch, "data"))
        workspace = Path(scratch, "workspace")
        workspace.mkdir()
        return _play(args, recording, rate, workspace)


def build_replay_app(recording: SSEReplay, name: str, rate: float | None, workspace: Path) -> NeoCodeApp:
    """The real app whose model is the recording; ``app.provider.played`` marks its end."""
    from neocode_tui.tui import NeoCodeApp

    return NeoCodeApp(
        settings=Settings(approval="ask"),
        provider=ReplayProvider(recording, rate),
        workspace=workspace,
        initial_prompt=f"(replay of {name})",
        remember_theme=False,
    )


async def until_played(app: NeoCodeApp) -> None:
    """Wait until the whole recorded turn is on screen."""
    from neocode_tui.tui.conversation import ConversationView

    provider = app.provider
    assert isinstance(provider, ReplayProvider)
    await provider.played.wait()
    await app.query_one(ConversationView).settled()


def _play(args: argparse.Namespace, recording: SSEReplay, rate: float | None, workspace: Path) -> int:
    app = build_replay_app(recording, Path(args.file).name, rate, workspace)

    async def exit_when_done(pilot: object) -> None:
        await until_played(app)
        app.exit()

    app.run(headless=args.headless, auto_pilot=exit_when_done if args.exit_when_done else None)
    return app.return_code or 0
