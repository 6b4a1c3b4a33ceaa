"""The first key: from process start to a key typed at the first frame showing in the input.

    .venv/bin/python bench/bench_first_key.py            # 7 rounds, interleaved
    .venv/bin/python bench/bench_first_key.py --rounds 11

Both sides start as fresh processes in a 100x30 pseudo-terminal (``TERM=xterm-256color``,
nothing answering the app's queries), in turn, so noise on a shared machine hits both alike:

- **floor**: a Textual app with one ``Input`` and nothing else, the least any Textual app
  can do;
- **neocode**: the real entry point, ``python -m neocode_tui``, in an empty project, with a
  fresh ``HOME``, XDG folders, data and config folders and no API keys (the offline model).

The first frame is detected from the output bytes as in bench_startup.py (the move to the
bottom row, then the cursor move ending that frame). Right then one key is written to the
terminal, a character no screen shows otherwise, and the clock runs until its UTF-8 bytes
come back: the input has taken it and drawn it. Medians of each, and the ratios of ours to
the floor. A first round of each is not counted (it writes the bytecode caches an
installed package has). Goal: the echo within 50 ms of the first frame.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import dataclass

from bench_startup import COLUMNS, FRAME_END, ROWS, TIMEOUT, pty_child, pty_output, scratch

KEY = "ж"
"""Typed at the first frame: a letter neither app draws on its own."""
GOAL_MS = 50

FLOOR = (
    "from textual.app import App\n"
    "from textual.widgets import Input\n"
    "class Floor(App):\n"
    "    def compose(self):\n"
    "        yield Input()\n"
    "Floor().run()\n"
)


@dataclass(frozen=True)
class Timing:
    first_frame: float
    """Seconds from the fork to the first frame's bytes."""
    echo: float
    """Seconds from writing the key (at the first frame) to its bytes on the terminal."""

    @property
    def first_key(self) -> float:
        return self.first_frame + self.echo


def first_key(args: list[str]) -> Timing:
    """``python ARGS`` forked in the pseudo-terminal; the key written at its first frame."""
    with scratch() as (work, env):
        home = os.path.join(os.path.dirname(work), "home")
        os.mkdir(home)
        env.update(HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
                   XDG_DATA_HOME=os.path.join(home, ".local/share"),
                   XDG_CACHE_HOME=os.path.join(home, ".cache"), XDG_STATE_HOME=os.path.join(home, ".local/state"))
        with pty_child(args, work, env) as (began, master, _):
            output = b""
            frame_at = typed_at = 0.0
            for chunk in pty_output(master, began + TIMEOUT):
                now = time.perf_counter()
                output += chunk
                if not typed_at and FRAME_END.search(output):
                    frame_at = typed_at = now
                    os.write(master, KEY.encode())
                    output = b""  # the echo is looked for only in what comes after the key
                elif typed_at and KEY.encode() in output:
                    return Timing(frame_at - began, now - typed_at)
            raise RuntimeError(f"no {'echo' if typed_at else 'first frame'} in {TIMEOUT} s: {output[-2000:]!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7, help="rounds of each (the median is kept)")
    args = parser.parse_args()

    contenders = {"floor": ["-c", FLOOR], "neocode": ["-m", "neocode_tui"]}
    timings: dict[str, list[Timing]] = {name: [] for name in contenders}
    for argv in contenders.values():  # a round not counted: the bytecode caches written
        first_key(argv)
    for _ in range(args.rounds):
        for name, argv in contenders.items():
            timings[name].append(first_key(argv))

    def median(name: str, what: str) -> float:
        return statistics.median(getattr(timing, what) for timing in timings[name])

    print(f"bench_first_key: {COLUMNS}x{ROWS} pty, key typed at the first frame, median of {args.rounds} rounds")
    print(f"{'':<10}{'first frame':>14}{'frame to echo':>16}{'first key':>12}")
    for name in contenders:
        print(f"{name:<10}{median(name, 'first_frame') * 1e3:11.0f} ms"
              f"{median(name, 'echo') * 1e3:13.0f} ms{median(name, 'first_key') * 1e3:9.0f} ms")
    ratios = "  ".join(f"{what.replace('_', ' ')} {median('neocode', what) / median('floor', what):.2f}x"
                       for what in ("first_frame", "echo", "first_key"))
    print(f"neocode / floor: {ratios}")
    echo = median("neocode", "echo") * 1e3
    print(f"goal: the key echoed within {GOAL_MS} ms of the first frame: {'met' if echo <= GOAL_MS else 'not met'} "
          f"({echo:.0f} ms)")


if __name__ == "__main__":
    main()
