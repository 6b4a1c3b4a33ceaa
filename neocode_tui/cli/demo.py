"""``neocode demo [SCRIPT] [--record FILE.svg|FILE.cast]``: a scripted session, watched or recorded.

Without ``--record`` the scenario plays in your terminal and the app stays open afterwards.
With it, the app runs headless and writes either the final screen (``.svg``) or the whole
session as an asciinema v2 file (``.cast``). Recordings run on a made-up clock that moves
one frame at a time, so the same scenario always gives the same file, byte for byte.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

from rich.console import Console
from textual.pilot import Pilot

from neocode_tui.tui import NeoCodeApp
from neocode_tui.tui.scenarios import SCENARIOS, Driver, Scenario

DEFAULT_SCRIPT = "tour"
FRAME_SECONDS = 0.1
PAUSE_SECONDS = 1.2
"""How long a recording lingers before a key press, so a viewer can read the question."""
LIVE_CHUNK = 4
"""Events per frame: small, so the stream visibly grows."""


class CastRecorder:
    """Collects the frames of one app as asciinema v2 events, on its own clock.

    Each frame sends only the lines that changed since the previous one (cursor-addressed),
    which keeps a long session's file small while replaying exactly what was drawn.
    """

    def __init__(self, title: str, size: tuple[int, int]) -> None:
        self.app: NeoCodeApp | None = None
        """Set once the app (which takes ``clock``) exists."""
        self.title = title
        self.size = size
        self.now = 0.0
        self._lines: list[str] = []
        self._events: list[tuple[float, str]] = []
        self._console = Console(
            file=io.StringIO(), force_terminal=True, color_system="truecolor", legacy_windows=False
        )

    def clock(self) -> float:
        """The app's clock in a recording: elapsed time and spinner follow the frames."""
        return self.now

    def _screen_lines(self) -> list[str]:
        app = self.app
        assert app is not None
        update = app.screen._compositor.render_update(
            full=True, screen_stack=app._background_screens, simplify=True
        )
        strips = cast(Any, update).strips  # a full update of the screen: lines of strips
        return ["".join(strip.render(self._console) for strip in line) for line in strips]

    async def frame(self) -> None:
        lines = self._screen_lines()
        changed = [
            f"\x1b[{row + 1};1H{line}"
            for row, line in enumerate(lines)
            if row >= len(self._lines) or self._lines[row] != line
        ]
        if changed:
            prefix = "\x1b[?25l\x1b[2J" if not self._events else ""
            self._events.append((round(self.now, 3), prefix + "".join(changed)))
            self._lines = lines
        self.now += FRAME_SECONDS

    async def linger(self) -> None:
        self.now += PAUSE_SECONDS

    def write(self, path: Path) -> None:
        width, height = self.size
        header = {
            "version": 2,
            "width": width,
            "height": height,
            "title": self.title,
            "env": {"TERM": "xterm-256color", "SHELL": "/bin/sh"},
        }
        events = [*self._events, (round(self.now + PAUSE_SECONDS, 3), "\x1b[?25h")]
        lines = [json.dumps(header)] + [json.dumps([time, "o", data]) for time, data in events]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


class LivePacer:
    """For a demo watched live: real pauses between frames."""

    async def frame(self) -> None:
        await asyncio.sleep(0.03)

    async def linger(self) -> None:
        await asyncio.sleep(PAUSE_SECONDS)


def run_demo(args: argparse.Namespace) -> int:
    name = args.script or DEFAULT_SCRIPT
    scenario = SCENARIOS.get(name)
    if scenario is None:
        listing = "\n".join(f"  {s.name:<10} {s.description}" for s in SCENARIOS.values())
        print(f"neocode demo: no script named {name!r}. The scripts:\n{listing}", file=sys.stderr)
        return 2
    record = Path(args.record) if args.record else None
    if record is not None and record.suffix not in (".svg", ".cast"):
        print("neocode demo: --record writes FILE.svg (final screen) or FILE.cast", file=sys.stderr)
        return 2
    if record is not None and (problem := _unwritable(record)):
        print(f"neocode demo: cannot write {record}: {problem}", file=sys.stderr)
        return 2
    # The demo works in a scratch folder with scratch sessions and a scratch config folder:
    # your files stay untouched, and your themes, remembered theme, hooks and MCP servers
    # stay out of it, so a recording is the same on every machine.
    with tempfile.TemporaryDirectory(prefix="neocode-demo-") as scratch:
        os.environ["NEOCODE_DATA_DIR"] = str(Path(scratch, "data"))
        os.environ["NEOCODE_CONFIG_DIR"] = str(Path(scratch, "config"))
        workspace = scenario.prepare(Path(scratch))
        if record is None:
            return _watch(scenario, workspace)
        return _record(scenario, workspace, record)


def _unwritable(target: Path) -> str:
    """Why a recording could not be written to ``target``, said before the app runs."""
    folder = target.parent
    if target.is_dir():
        return "it is a folder"
    if not folder.is_dir():
        return f"there is no folder {folder}"
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return "permission denied"
    return ""


def _watch(scenario: Scenario, workspace: Path) -> int:
    app = scenario.build_app(workspace, clock=time.monotonic)
    pacer = LivePacer()

    async def play(pilot: Pilot) -> None:
        await Driver(pilot, pacer, chunk=LIVE_CHUNK).play(scenario.steps)

    app.run(auto_pilot=play)
    return 0


def _record(scenario: Scenario, workspace: Path, target: Path) -> int:
    recorder = CastRecorder(f"NeoCode demo: {scenario.name}", scenario.size)
    app = recorder.app = scenario.build_app(workspace, clock=recorder.clock)

    async def play(pilot: Pilot) -> None:
        await Driver(pilot, recorder, chunk=LIVE_CHUNK).play(scenario.steps)
        if target.suffix == ".svg":
            target.write_text(app.export_screenshot(title=f"NeoCode demo: {scenario.name}"), encoding="utf-8")
        else:
            recorder.write(target)
        app.exit()

    app.run(headless=True, size=scenario.size, auto_pilot=play)
    print(f"wrote {target}")
    return 0
