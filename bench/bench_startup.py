"""Cold start: from process start to the first frame, NeoCode against an empty Textual app.

    .venv/bin/python bench/bench_startup.py            # 7 runs of each, interleaved
    .venv/bin/python bench/bench_startup.py --runs 11

Both sides start as fresh processes, in turn, so noise on a shared machine hits both alike:

- **ours**: the real entry point, ``python -m neocode_tui``, in an empty folder, with
  ``NEOCODE_DATA_DIR`` and ``NEOCODE_CONFIG_DIR`` in fresh folders and no API keys (the
  offline scripted model);
- **empty**: ``textual.app.App().run()``.

Each is timed two ways, by the same rule for both:

- **headless**: Textual's headless driver (``TEXTUAL_DRIVER``); the first frame is the first
  compositor update the app hands to ``App._display``, where a terminal would be written to.
  The child then writes a line to stdout and exits at once.
- **pty**: a pseudo-terminal of 100x30 with ``TERM=xterm-256color``, nothing answering the
  app's queries; the first frame has arrived once the output holds the move to the bottom
  row (every full frame writes each row) and the cursor move that ends that frame.

Then ``neocode --help`` against bare ``python -c pass``. Goal: ours - empty <= 100 ms. Also
timed: the empty app with one pydantic model defined first, the least the settings cost.
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

COLUMNS, ROWS = 100, 30
GOAL_MS = 100
TIMEOUT = 30.0

FIRST_FRAME = """
import os
from textual.app import App

_display = App._display

def _first_frame(app, screen, renderable):
    if renderable is not None and not app._batch_count:
        os.write(1, b"\\nFIRST FRAME\\n")
        os._exit(0)
    _display(app, screen, renderable)

App._display = _first_frame
"""
"""Installed before either app starts (both import ``textual.app`` anyway before a frame)."""

OURS = "import runpy, sys; sys.argv = ['neocode']; runpy.run_module('neocode_tui', run_name='__main__', alter_sys=True)"
EMPTY = "from textual.app import App; App().run()"
PYDANTIC = "from pydantic import BaseModel\nclass Settings(BaseModel):\n    model: str = ''\nSettings()\n"
"""One pydantic model before the empty app: what validating the settings costs at least."""

FRAME_END = re.compile(rb"\x1b\[%d;1H.*?\x1b\[\d+;\d+H" % ROWS, re.DOTALL)
"""The bottom row's move (a full frame moves to each row), then the cursor move ending the frame."""


@contextmanager
def scratch() -> Iterator[tuple[str, dict[str, str]]]:
    """An empty working folder and the environment of a first run: no keys, fresh folders."""
    root = tempfile.mkdtemp(prefix="bench-startup-")
    try:
        folders = {name: os.path.join(root, name) for name in ("work", "data", "config")}
        for folder in folders.values():
            os.mkdir(folder)
        # An installed package has its bytecode cached: the first run writes what is missing.
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("NEOCODE_", "TEXTUAL")) and "API_KEY" not in key
            and key != "PYTHONDONTWRITEBYTECODE"
        }
        env.update(NEOCODE_DATA_DIR=folders["data"], NEOCODE_CONFIG_DIR=folders["config"])
        yield folders["work"], env
    finally:
        shutil.rmtree(root, ignore_errors=True)


def headless(code: str) -> float:
    """Seconds from spawning ``python -c code`` to its first frame, on the headless driver."""
    with scratch() as (work, env):
        env.update(TEXTUAL_DRIVER="textual.drivers.headless_driver:HeadlessDriver",
                   COLUMNS=str(COLUMNS), LINES=str(ROWS))
        began = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-c", FIRST_FRAME + code], cwd=work, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        assert child.stdout is not None
        for line in child.stdout:
            if line == b"FIRST FRAME\n":
                took = time.perf_counter() - began
                child.wait()
                return took
        raise RuntimeError(f"no first frame: {child.wait()} {child.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]


@contextmanager
def pty_child(args: list[str], work: str, env: dict[str, str]) -> Iterator[tuple[float, int, int]]:
    """``python ARGS`` forked in a COLUMNSxROWS pseudo-terminal in ``work``: when it was
    forked, the terminal's other end and the child's pid; killed when the block ends."""
    import fcntl
    import termios

    env.update(TERM="xterm-256color")
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    began = time.perf_counter()
    pid, master = pty.fork()
    if pid == 0:  # the child: its terminal's size, then the app
        fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        os.chdir(work)
        os.execve(sys.executable, [sys.executable, *args], env)
    try:
        yield began, master, pid
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(master)


def pty_output(master: int, deadline: float, *, quiet: float | None = None) -> Iterator[bytes]:
    """What the child writes to its terminal, chunk by chunk, until it closes it or the
    deadline passes; with ``quiet``, an empty chunk for every ``quiet`` seconds it says
    nothing (a reader that waits for the screen to go still)."""
    while time.perf_counter() < deadline:
        ready, _, _ = select.select([master], [], [], quiet or 0.5)
        if not ready:
            if quiet:
                yield b""
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed its terminal
            return
        if not chunk:
            return
        yield chunk


def in_pty(args: list[str]) -> float:
    """Seconds from forking ``python ARGS`` in a 100x30 pseudo-terminal to the bytes of
    its first full frame."""
    with scratch() as (work, env), pty_child(args, work, env) as (began, master, _):
        output = b""
        for chunk in pty_output(master, began + TIMEOUT):
            output += chunk
            if FRAME_END.search(output):
                return time.perf_counter() - began
        raise RuntimeError(f"no first frame in {TIMEOUT} s: {output[-2000:]!r}")


def process_seconds(args: list[str]) -> float:
    began = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    return time.perf_counter() - began


def medians(runs: int, contenders: dict[str, Callable[[], float]]) -> dict[str, float]:
    """Median seconds of each contender over ``runs`` rounds, the contenders taking turns."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(runs):
        for name, measure in contenders.items():
            times[name].append(measure())
    return {name: statistics.median(values) for name, values in times.items()}


def compare(what: str, ours: float, base: float, base_name: str) -> str:
    return (f"{what:<34}{ours * 1e3:8.0f} ms  {base_name} {base * 1e3:5.0f} ms  "
            f"difference {(ours - base) * 1e3:+5.0f} ms  ratio {ours / base:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="runs of each (the median is kept)")
    args = parser.parse_args()

    print(f"bench_startup: process start to first frame, median of {args.runs} runs each")
    first = medians(args.runs, {
        "headless ours": lambda: headless(OURS),
        "headless empty": lambda: headless(EMPTY),
        "headless pydantic": lambda: headless(PYDANTIC + EMPTY),
        "pty ours": lambda: in_pty(["-m", "neocode_tui"]),
        "pty empty": lambda: in_pty(["-c", EMPTY]),
    })
    cli = medians(args.runs, {
        "help": lambda: process_seconds([sys.executable, "-m", "neocode_tui", "--help"]),
        "python": lambda: process_seconds([sys.executable, "-c", "pass"]),
    })
    print(compare("neocode, headless first frame", first["headless ours"], first["headless empty"], "empty App"))
    floor = first["headless pydantic"] - first["headless empty"]
    print(f"  for reference, {floor * 1e3:.0f} ms is what one pydantic model adds to the empty App (importing "
          f"pydantic, building a first model: the settings, loaded after the first frame)")
    print(compare(f"neocode, pty {COLUMNS}x{ROWS} first frame", first["pty ours"], first["pty empty"], "empty App"))
    print(compare("neocode --help", cli["help"], cli["python"], "python -c pass"))
    worst = max(first["headless ours"] - first["headless empty"], first["pty ours"] - first["pty empty"])
    verdict = "met" if worst * 1e3 <= GOAL_MS else "not met"
    print(f"goal: first frame within {GOAL_MS} ms of the empty app's, both ways: {verdict} "
          f"(worst difference {worst * 1e3:+.0f} ms)")


if __name__ == "__main__":
    main()
