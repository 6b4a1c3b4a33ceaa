"""What a command printing 10 MB costs the screen and the keyboard, against an idle app.

Run: ``.venv/bin/python bench/bench_command_output.py [--seconds 5]``

The real ``NeoCodeApp`` headless (120x40), the offline scripted model asking for one real
``bash`` command (full-auto, in the sandbox when there is one). While the command runs, the
bench samples, as a terminal would feel them:

- **frame lag**: 60 times a second something on screen changes (the status bar is asked to
  redraw); the time from that request to the next frame written to the terminal;
- **key latency**: 20 times a second a key goes in through the driver, as a terminal sends
  it; the time from the key to the first frame whose prompt shows it;
- **output lag**: the time from a ``ToolOutputDelta`` reaching the view to the frame that
  shows it.

Cases, each ``--seconds`` long (about), in one process:

- **idle**: no command (the baseline every ratio is against);
- **10 MB, paced**: ``bash`` printing 10 MB of 100-character lines in 100 bursts;
- **10 MB, flood**: ``bash`` printing 10 MB as fast as the pipe takes it (over in a moment:
  few samples);
- **10 MB, one line**: the same flood with no line end but the last: the time against the
  flood in lines is printed, and stays at 1 or less (each line is cut as it arrives, see
  ``LineCap`` in live_output.py; keeping the open line whole made it quadratic);
- **10 MB to the view**: a ``sleep`` command whose panel is sent the same 10 MB as live
  output deltas, paced, through the view's ``post``: what the screen would cost if the core
  passed all of a flood on (it passes the first 15 kB, see ``_Capture`` in tools/bash.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual import events

from neocode_tui.agent.loop_events import LoopEvent, ToolFinished, ToolOutputDelta, ToolStarted
from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp

SIZE = (120, 40)
TOTAL = 10_000_000
BURSTS = 100
LINE = "building module with a long name and its flags -O2 -g -Wall; linking objects into the library .....\n"
FRAME = 1 / 60
KEY = 1 / 20


def paced_command(seconds: float) -> str:
    burst = TOTAL // BURSTS
    return (
        f"for i in $(seq {BURSTS}); do yes '{LINE.rstrip()}' | head -c {burst}; "
        f"sleep {seconds / BURSTS:.3f}; done"
    )


def flood(size: int) -> str:
    return f"yes '{LINE.rstrip()}' | head -c {size}"


def one_line(size: int) -> str:
    return f"head -c {size} /dev/zero | tr '\\0' a; echo"


class Probe:
    """Stamps frame requests, keys and output deltas, and settles them at each frame write."""

    def __init__(self, app: NeoCodeApp) -> None:
        self.app = app
        self.measuring = False
        self.frames_due: list[float] = []
        self.outputs: list[float] = []
        self.key_at: float | None = None
        self.key_length = 0
        self.frame_lags: list[float] = []
        self.key_lags: list[float] = []
        self.output_lags: list[float] = []
        self.output_times: list[float] = []
        self.output_bytes = 0
        display = app._display

        def display_and_stamp(*args: object, **kwargs: object) -> None:
            display(*args, **kwargs)  # type: ignore[arg-type]
            now = time.perf_counter()
            self.frame_lags.extend(now - t for t in self.frames_due)
            self.output_lags.extend(now - t for t in self.outputs)
            self.output_times.extend(self.outputs)
            self.frames_due.clear()
            self.outputs.clear()
            if self.key_at is not None and len(app.prompt.text) > self.key_length:
                self.key_lags.append(now - self.key_at)
                self.key_at = None

        app._display = display_and_stamp  # type: ignore[method-assign]
        view = app.conversation
        post = view.post

        def post_and_stamp(event: LoopEvent) -> None:
            if isinstance(event, ToolStarted):
                self.measuring = True
            elif isinstance(event, ToolFinished):
                self.measuring = False
            elif isinstance(event, ToolOutputDelta) and self.measuring:
                self.outputs.append(time.perf_counter())
                self.output_bytes += len(event.text)
            post(event)

        view.post = post_and_stamp  # type: ignore[method-assign]

    async def frames(self) -> None:
        while True:
            await asyncio.sleep(FRAME)
            if self.measuring:
                self.frames_due.append(time.perf_counter())
                self.app.status.refresh()

    async def keys(self) -> None:
        driver = self.app._driver
        assert driver is not None
        prompt = self.app.prompt
        while True:
            await asyncio.sleep(KEY)
            if not self.measuring or self.key_at is not None:
                continue
            if len(prompt.text) > 60:
                prompt.clear()
                continue
            self.key_length = len(prompt.text)
            self.key_at = time.perf_counter()
            key = events.Key("x", "x")
            key.set_sender(self.app)
            driver.send_message(key)


Case = Callable[[NeoCodeApp, Probe, float], Awaitable[None]]


async def idle(app: NeoCodeApp, probe: Probe, seconds: float) -> None:
    probe.measuring = True
    await asyncio.sleep(seconds)
    probe.measuring = False


def running(feed: bool = False) -> Case:
    """Send a prompt (not typed: the probe's keys are the only ones), wait for the command to
    start; ``feed``: post 10 MB of output to its panel, then stop it as Esc does."""

    async def case(app: NeoCodeApp, probe: Probe, seconds: float) -> None:
        app.post_message(app.prompt.Submitted(app.prompt, "run it"))
        while not probe.measuring:
            await asyncio.sleep(0.001)
        if feed:
            await feed_view(app, seconds)
            app.session.cancel()
        while app.working:
            await asyncio.sleep(0.01)

    return case


async def feed_view(app: NeoCodeApp, seconds: float) -> None:
    """10 MB of live output deltas for the running call, in ``BURSTS`` bursts of two 50 kB
    pieces (the core's reader hands on up to 64 kB at a time), as the core's sink posts them."""
    turn = app.session.loop.turn
    piece = LINE * (TOTAL // BURSTS // 2 // len(LINE))
    for _ in range(BURSTS):
        for _ in range(2):
            app.conversation.post(ToolOutputDelta(turn=turn, index=0, call_id="bench_1", text=piece))
        await asyncio.sleep(seconds / BURSTS)


async def measure(case: Case, command: str, seconds: float) -> Probe:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch, "project")
        folder.mkdir()
        os.environ["NEOCODE_DATA_DIR"] = str(Path(scratch, "data"))
        call = ("bash", json.dumps({"command": command, "timeout": 600}))
        turns = [scripted_reply("Running it.", [call], delta=50), scripted_reply("Done.")]
        provider = ScriptedProvider(turns)
        app = NeoCodeApp(
            Settings(provider="scripted", approval="full-auto"), provider, folder, remember_theme=False
        )
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            probe = Probe(app)
            tickers = [asyncio.create_task(probe.frames()), asyncio.create_task(probe.keys())]
            began = time.perf_counter()
            await case(app, probe, seconds)
            probe.seconds = time.perf_counter() - began  # type: ignore[attr-defined]
            for ticker in tickers:
                ticker.cancel()
            await app.conversation.settled()
        return probe


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * fraction), len(ordered) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="how long the idle and paced cases last")
    parser.add_argument("--flood-mb", type=int, default=10, help="MB printed by the two flood cases")
    args = parser.parse_args()
    seconds = args.seconds
    size = args.flood_mb * 1_000_000
    cases: dict[str, tuple[Case, str]] = {
        "idle (baseline)": (idle, "true"),
        "10 MB, paced": (running(), paced_command(seconds)),
        f"{args.flood_mb} MB, flood": (running(), flood(size)),
        f"{args.flood_mb} MB, one line": (running(), one_line(size)),
        "10 MB to the view": (running(feed=True), "sleep 600"),
    }
    with tempfile.TemporaryDirectory() as config:
        os.environ["NEOCODE_CONFIG_DIR"] = config
        probes = {
            name: asyncio.run(measure(case, command, seconds)) for name, (case, command) in cases.items()
        }
    base = probes["idle (baseline)"]
    base_frame, base_key = percentile(base.frame_lags, 0.95), percentile(base.key_lags, 0.95)
    print(f"bench_command_output: the real app headless at {SIZE[0]}x{SIZE[1]}, a real bash command; ms")
    print(f"{'':20}{'secs':>6}{'frames':>8}{'frame p50':>10}{'p95':>7}{'keys':>6}{'key p50':>9}{'p95':>7}"
          f"{'out MB':>8}{'out p50':>9}{'p95':>7}{'frame p95 x':>12}{'key p95 x':>10}")
    for name, probe in probes.items():
        frame, key, out = probe.frame_lags, probe.key_lags, probe.output_lags
        print(
            f"{name:20}{probe.seconds:6.1f}{len(frame):8}"  # type: ignore[attr-defined]
            f"{percentile(frame, 0.5) * 1e3:10.1f}{percentile(frame, 0.95) * 1e3:7.1f}"
            f"{len(key):6}{percentile(key, 0.5) * 1e3:9.1f}{percentile(key, 0.95) * 1e3:7.1f}"
            f"{probe.output_bytes / 1e6:8.2f}"
            f"{percentile(out, 0.5) * 1e3:9.1f}{percentile(out, 0.95) * 1e3:7.1f}"
            f"{percentile(frame, 0.95) / base_frame:12.2f}{percentile(key, 0.95) / base_key:10.2f}"
        )
    lines = probes[f"{args.flood_mb} MB, flood"].seconds  # type: ignore[attr-defined]
    line = probes[f"{args.flood_mb} MB, one line"].seconds  # type: ignore[attr-defined]
    print(f"{args.flood_mb} MB on one line took {line:.2f} s, in lines {lines:.2f} s: "
          f"x{line / lines:.2f} (linear: 1 or less)")
    fed = probes["10 MB to the view"]
    if fed.output_times:
        middle = (fed.output_times[0] + fed.output_times[-1]) / 2
        stamped = list(zip(fed.output_times, fed.output_lags, strict=True))
        first = percentile([lag for at, lag in stamped if at < middle], 0.95)
        last = percentile([lag for at, lag in stamped if at >= middle], 0.95)
        print(f"10 MB to the view, output lag p95 in the first half {first * 1e3:.1f} ms, "
              f"in the last half {last * 1e3:.1f} ms (flat: the tail kept is bounded)")
    print("frame: a redraw asked for -> the frame written; key: a key in -> the prompt showing it;")
    print("out: a live output delta -> the frame showing it; x: p95 against the idle baseline")


if __name__ == "__main__":
    main()
