"""Keypress to paint while an answer streams, in a fresh session and in a long resumed one.

    .venv/bin/python bench/bench_typing_long.py                   # 0 and 10,000 messages
    .venv/bin/python bench/bench_typing_long.py --messages 2000 --seconds 8

Each case is a fresh process running the real ``NeoCodeApp`` headless (120x40) on a real
session file (``bench_long_session.write_session``: an exchange of four messages, about
500 characters each), resumed as ``neocode --continue`` does. A prompt is sent and the
scripted model streams a long Markdown answer at 200 deltas a second while a key goes in
through the driver 20 times a second, as a terminal sends it; each key's latency is the time
to the first frame written whose prompt shows it (``bench_command_output.Probe``), from
the moment start-up's own work after the first frame is done. The
fresh session is the baseline the long one is compared with, in the same run.

Goal: p95 at most 50 ms with 10,000 messages, and the ratio to the fresh session near 1
(what the history holds does not slow the keyboard).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_command_output import Probe, percentile  # this folder is the script's first path
from bench_long_session import SIZE, exchange, write_session

RATE = 200.0
"""Deltas a second the model streams (a fast hosted model)."""


def answer(seconds: float) -> str:
    """Markdown long enough to stream for ``seconds`` at ``RATE`` deltas of 6 characters."""
    text = ""
    n = 0
    while len(text) < seconds * RATE * 6:
        text += str(exchange(n)[-1]["content"]) + "\n\n"
        n += 1
    return text


async def measure(seconds: float, resume: bool) -> dict[str, float]:
    """In the child: the app (resuming this folder's session when there is one), one
    streamed answer, keys typed all through it."""
    from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
    from neocode_tui.settings.model import Settings
    from neocode_tui.tui.app import NeoCodeApp

    provider = ScriptedProvider([scripted_reply(answer(seconds))], rate=RATE)
    app = NeoCodeApp(Settings(provider="scripted"), provider, Path.cwd(), remember_theme=False,
                     resume="" if resume else None)
    async with app.run_test(size=SIZE) as pilot:
        await app.conversation.settled()
        # Start-up's own work after the first frame (imports, highlighters) done first: the
        # keys measure what typing later in the session feels like, in both cases alike.
        await app.workers.wait_for_complete([w for w in app.workers if w.group == "start-up"])
        await pilot.pause()
        probe = Probe(app)
        keys = asyncio.create_task(probe.keys())
        app.post_message(app.prompt.Submitted(app.prompt, "explain the loader"))
        while not app.working:
            await asyncio.sleep(0.001)
        probe.measuring = True
        while app.working:
            await asyncio.sleep(0.01)
        probe.measuring = False
        keys.cancel()
        await app.conversation.settled()
    lags = probe.key_lags
    return {"keys": len(lags), "p50": percentile(lags, 0.5), "p95": percentile(lags, 0.95),
            "max": max(lags, default=float("nan"))}


def run(count: int, seconds: float) -> dict[str, float]:
    """One fresh process: a workspace, a session of ``count`` messages, the app resuming it."""
    with tempfile.TemporaryDirectory(prefix="bench-typing-") as scratch:
        root = Path(scratch)
        data, config, workspace = root / "data", root / "config", root / "work"
        workspace.mkdir()
        if count:
            write_session(data, workspace, count)
        env = {**os.environ, "NEOCODE_DATA_DIR": str(data), "NEOCODE_CONFIG_DIR": str(config),
               "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "NEOCODE_NOTIFY": "off"}
        done = subprocess.run([sys.executable, __file__, "--child", str(seconds), "1" if count else "0"],
                              check=True, capture_output=True, text=True, env=env, cwd=workspace)
        figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
        return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=10_000, help="the long session's length")
    parser.add_argument("--seconds", type=float, default=5.0, help="how long the answer streams")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(measure(float(args.child[0]), args.child[1] == "1"))))
        return
    fresh, long = run(0, args.seconds), run(args.messages, args.seconds)
    print(f"bench_typing_long: a key typed while an answer streams ({RATE:.0f} deltas/s), "
          f"{SIZE[0]}x{SIZE[1]}; ms")
    print(f"{'':24}{'keys':>6}{'p50':>8}{'p95':>8}{'max':>8}")
    for name, figures in (("fresh session", fresh), (f"{args.messages:,} messages resumed", long)):
        print(f"{name:24}{figures['keys']:6.0f}{figures['p50'] * 1e3:8.1f}{figures['p95'] * 1e3:8.1f}"
              f"{figures['max'] * 1e3:8.1f}")
    verdict = "within" if long["p95"] <= 0.05 else "over"
    print(f"p95 against the fresh session: {long['p95'] / fresh['p95']:.2f}x; goal 50 ms: {verdict}")


if __name__ == "__main__":
    main()
