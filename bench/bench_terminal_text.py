"""What showing controls escaped costs, against the same work without it.

Run: ``.venv/bin/python bench/bench_terminal_text.py [--repeat 7]``

Each row times one path twice in this run, with ``terminal_text`` and without, and prints
the ratio (best of ``--repeat``):

- **headless delta**: an answer in 4-character deltas, each written and flushed (to
  /dev/null, the cheapest a write gets): ``VisibleChunks`` on each delta plus the write,
  against the write alone (the hot path of ``neocode -p`` on a terminal);
- **markdown tail**: the app's open answer tail (2,000 characters) drawn once per frame:
  ``visible`` on it plus Rich's Markdown render, against the render alone;
- **coloured output**: a finished command's 200 lines, each with colour codes (the worst
  realistic case: every line has controls to replace), escaped and drawn, against drawn raw;
- **line filter**: the app's last-defence filter on the lines of a drawn screen, plus turning
  them into terminal bytes (``Strip.render``), against the bytes alone;
- **visible, MB/s**: the function on its own, on clean text and on text full of controls.
"""

from __future__ import annotations

import argparse
import io
import os

from bench_agent import best
from rich.console import Console
from rich.text import Text
from textual.color import Color
from textual.strip import Strip

from neocode_tui.terminal_text import VisibleChunks, visible
from neocode_tui.tui.control_filter import ControlFilter
from neocode_tui.tui.conversation.markdown import MarkdownText

PROSE = (
    "The loader reads every file twice, once to **count** lines and once to parse them; "
    "folding both passes into one lets it report progress as it goes. See `load_all()`.\n\n"
    "- keep the public signature\n- stream records instead of a list\n\n"
)
COLOURED = "".join(
    f"\x1b[32mPASSED\x1b[0m tests/test_module_{n:03d}.py::test_case_{n} \x1b[2m[{n // 2:3d}%]\x1b[0m\n"
    for n in range(200)
)


ANSWER = PROSE * 400
DELTAS = [ANSWER[i : i + 4] for i in range(0, len(ANSWER), 4)]


def headless(repeat: int) -> tuple[float, float]:
    deltas = DELTAS

    def raw() -> None:
        with open(os.devnull, "w") as out:
            for delta in deltas:
                out.write(delta)
                out.flush()  # as ``neocode -p`` does on a terminal, for each delta

    def shown() -> None:
        chunks = VisibleChunks()
        with open(os.devnull, "w") as out:
            for delta in deltas:
                out.write(chunks(delta))
                out.flush()

    return best(repeat, raw), best(repeat, shown)


def _console() -> Console:
    return Console(width=120, file=io.StringIO(), color_system="truecolor", legacy_windows=False)


def markdown_tail(repeat: int) -> tuple[float, float]:
    console, tail = _console(), (PROSE * 20)[:2000]
    options = console.options.update(width=118, height=None, highlight=False)

    def draw(text: str) -> None:
        console.render_lines(MarkdownText(text, "monokai"), options, pad=False)

    return best(repeat, lambda: draw(tail)), best(repeat, lambda: draw(visible(tail)))


def coloured_output(repeat: int) -> tuple[float, float]:
    console = _console()
    options = console.options.update(width=118, height=None)

    def draw(text: str) -> None:
        console.render_lines(Text(text), options, pad=False)

    return best(repeat, lambda: draw(COLOURED)), best(repeat, lambda: draw(visible(COLOURED)))


def line_filter(repeat: int) -> tuple[float, float]:
    console = _console()
    options = console.options.update(width=118, height=None, highlight=False)
    lines = console.render_lines(MarkdownText(PROSE * 6, "monokai"), options, pad=True)[:40]
    control_filter, background = ControlFilter(), Color(0, 0, 0)

    def raw() -> None:
        for segments in lines:
            Strip(segments, 118).render(console)

    def filtered() -> None:
        for segments in lines:
            Strip(control_filter.apply(segments, background), 118).render(console)

    return best(repeat, raw), best(repeat, filtered)


def throughput(text: str, repeat: int) -> float:
    return len(text) / best(repeat, lambda: visible(text)) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    print(f"{'path':<18}{'without':>12}{'with':>12}{'ratio':>8}")
    for name, measure in (("headless delta", headless), ("markdown tail", markdown_tail),
                          ("coloured output", coloured_output), ("line filter", line_filter)):
        raw, shown = measure(repeat)
        print(f"{name:<18}{raw * 1e3:>10.2f}ms{shown * 1e3:>10.2f}ms{shown / raw:>7.2f}x")
        if measure is headless:
            added = (shown - raw) / len(DELTAS) * 1e9
            print(f"{'':<18}(+{added:.0f} ns per delta: {added * 5000 / 1e7:.2f}% of a core at 5,000/s)")
    clean, dirty = PROSE * 5000, COLOURED * 50
    print(f"visible, MB/s: {throughput(clean, repeat):,.0f} on clean text, "
          f"{throughput(dirty, repeat):,.0f} on coloured output")


if __name__ == "__main__":
    main()
