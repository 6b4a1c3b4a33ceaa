"""What streaming costs on screen: our ConversationView against Textual's MarkdownStream.

Every figure is measured in this run, on this machine, next to its baseline, and printed as a
ratio. Headless ``run_test`` at 120x40; realistic Markdown (headings, prose, lists, fenced
Python) in 4-character deltas.

    .venv/bin/python bench/bench_screen.py           # the full run (about 10 minutes)
    .venv/bin/python bench/bench_screen.py --quick   # smaller sizes (a few minutes)

- per-delta cost: CPU per delta with the screen drawn every 100 deltas, around the 10,000th
  character and at the end of one long answer, and the same as CPU per 10,000 characters
  streamed (goal: end / 10,000 <= 1.3). The two sizes are measured in turns, ``--rounds``
  times, and the medians kept: on a machine shared with other work one run of each swings
  by a third;
- the real app (``build_replay_app``, headless) streaming a 10,000 and a long answer as fast
  as possible: its CPU per 10,000 characters from its first frame on (the first answer loads
  the Markdown parser and the highlighter), each in a fresh process;
- sustained deltas per second on that answer, streamed as fast as possible (goal >= 5,000);
- lag from an event's arrival to the frame that shows it, at 2,000 deltas/s (goal p95 <= 50 ms:
  the view applies a stream at most 30 times a second, and the frame that shows it comes
  with Textual's next one, at 60);

Start-up (``neocode --help``, the app's first frame) is measured in bench/bench_startup.py, long
sessions (resume, scroll, memory) in bench/bench_long_session.py.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

SIZE = (120, 40)
DELTA = 4
WINDOW = 100
MEASURED = 4_000
"""Characters streamed (and timed) at each answer size."""

UNIT = """## Step {n}: tidy the loader

The loader reads every file twice, once to **count** lines and once to parse them. We can
fold both passes into one, which also lets us report progress as we go. See `load_all()`.

- keep the public signature of `load_all`
- stream records instead of building a list
- add a test for the empty file

```python
def load_all(paths: list[str]) -> Iterator[Record]:
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if line.strip():
                    yield parse(line, path=path, line=number)
```

1. run `pytest -q`
2. compare the timings with the old loader

> The old behaviour stays available behind `--two-pass` for one release.

"""


def realistic_markdown(chars: int) -> str:
    parts: list[str] = []
    total = 0
    n = 1
    while total < chars:
        unit = UNIT.format(n=n)
        parts.append(unit)
        total += len(unit)
        n += 1
    return "".join(parts)[:chars]


def long_code(chars: int) -> str:
    """One fenced code block of ``chars`` characters: a whole file in the answer."""
    lines = []
    total = 0
    n = 0
    while total < chars:
        line = f"def handler_{n}(request):\n    return respond(request, status={n % 500})\n\n"
        lines.append(line)
        total += len(line)
        n += 1
    return ("```python\n" + "".join(lines))[:chars]


def write_file_arguments(chars: int) -> str:
    """A ``write_file`` call's JSON arguments whose content is ``chars`` characters of code."""
    return json.dumps({"path": "src/handlers.py", "content": long_code(chars + 10)[10:]})


def cut(text: str) -> list[str]:
    return [text[i : i + DELTA] for i in range(0, len(text), DELTA)]


# --- the two screens ----------------------------------------------------------------------


def our_app() -> tuple[object, Callable[[], object]]:
    from textual.app import App, ComposeResult

    from neocode_tui.tui.conversation import ConversationView

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield ConversationView()

    app = Host()
    return app, lambda: app.query_one(ConversationView)


class OurFeed:
    """Deltas into our view, as the agent loop posts them: answer text, or (``tool``) the
    arguments of one ``write_file`` call."""

    def __init__(self, view: object, tool: bool = False) -> None:
        from neocode_tui.agent.loop_events import Streamed, TurnStarted
        from neocode_tui.events import TextDelta, ToolCallDelta, ToolCallStart

        def streamed(event: object) -> Streamed:
            return Streamed.model_construct(turn=1, type="stream", event=event)

        self.view = view
        view.post(TurnStarted(turn=1))  # type: ignore[attr-defined]
        if tool:
            view.post(streamed(ToolCallStart(index=0, id="call_1", name="write_file")))  # type: ignore[attr-defined]
            self._wrap = lambda text: streamed(
                ToolCallDelta.model_construct(type="tool_call_delta", index=0, arguments=text)
            )
        else:
            self._wrap = lambda text: streamed(TextDelta.model_construct(type="text_delta", text=text))

    async def write(self, text: str) -> None:
        self.view.post(self._wrap(text))  # type: ignore[attr-defined]

    async def drain(self) -> None:
        await self.view.settled()  # type: ignore[attr-defined]


def baseline_app() -> tuple[object, Callable[[], object]]:
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll
    from textual.widgets import Markdown

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield Markdown()

    app = Host()
    return app, lambda: app.query_one(Markdown)


class BaselineFeed:
    """Deltas into one Markdown widget through ``Markdown.get_stream`` (Toad, Mistral Vibe)."""

    def __init__(self, markdown: object, pilot: object) -> None:
        from textual.widgets import Markdown

        assert isinstance(markdown, Markdown)
        self.stream = Markdown.get_stream(markdown)
        self.scroll = markdown.parent
        self.pilot = pilot

    async def write(self, text: str) -> None:
        await self.stream.write(text)
        self.scroll.scroll_end(animate=False)  # type: ignore[union-attr]

    async def drain(self) -> None:
        stream = self.stream
        while stream._pending or stream._new_markup.is_set():
            await asyncio.sleep(0.001)
        await self.pilot.pause()  # type: ignore[attr-defined]


Feed = OurFeed | BaselineFeed


async def with_feed(ours: bool, body: Callable[[Feed], Awaitable[object]], tool: bool = False) -> object:
    app, target = our_app() if ours else baseline_app()
    async with app.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        feed: Feed = OurFeed(target(), tool) if ours else BaselineFeed(target(), pilot)
        result = await body(feed)
        if isinstance(feed, BaselineFeed):
            await feed.stream.stop()
        return result


# --- the measurements -------------------------------------------------------------------


async def per_delta_costs(feed: Feed, deltas: list[str]) -> list[float]:
    """CPU seconds per delta for each window of WINDOW deltas, the screen drawn after each
    window: what drawing costs at that point of the answer."""
    costs: list[float] = []
    for start in range(0, len(deltas), WINDOW):
        began = time.process_time()
        for delta in deltas[start : start + WINDOW]:
            await feed.write(delta)
            await asyncio.sleep(0)
        await feed.drain()
        costs.append((time.process_time() - began) / WINDOW)
    return costs


async def sustained(feed: Feed, deltas: list[str]) -> float:
    """Deltas per second over the whole answer, streamed as fast as a provider yields them
    (a pause every 16 deltas), until the last one is on screen."""
    began = time.perf_counter()
    for number, delta in enumerate(deltas):
        await feed.write(delta)
        if number % 16 == 15:
            await asyncio.sleep(0)
    await feed.drain()
    return len(deltas) / (time.perf_counter() - began)


async def cost_at(feed: Feed, text: str, size: int) -> float:
    """Median CPU per delta while the answer grows from ``size - MEASURED`` to ``size``
    characters (what came before arrives as one delta: only the streaming end is timed)."""
    await feed.write(text[: size - MEASURED])
    await feed.drain()
    return statistics.median(await per_delta_costs(feed, cut(text[size - MEASURED : size])))


async def rate_at_end(feed: Feed, text: str, size: int, last: int) -> float:
    """Deltas per second over the last ``last`` characters of a ``size``-character answer."""
    await feed.write(text[: size - last])
    await feed.drain()
    return await sustained(feed, cut(text[size - last : size]))


async def lag(ours: bool, deltas: list[str], rate: float) -> list[float]:
    """Seconds from each delta's arrival to the terminal write of the first frame showing it.

    Deltas applied to the widget (our frame flush, MarkdownStream's append) wait in
    ``applied`` until the app next writes a frame to the terminal (``App._display``).
    """
    lags: list[float] = []
    arrivals: list[float] = []
    applied: list[float] = []

    app, target = our_app() if ours else baseline_app()
    display = app._display  # type: ignore[attr-defined]

    def display_and_stamp(*args: object, **kwargs: object) -> None:
        display(*args, **kwargs)
        now = time.perf_counter()
        lags.extend(now - t for t in applied)
        applied.clear()

    app._display = display_and_stamp  # type: ignore[attr-defined]
    async with app.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        widget = target()
        if ours:
            feed: Feed = OurFeed(widget)
            original = widget._flush  # type: ignore[attr-defined]

            def flush() -> None:
                batch = arrivals[:]
                arrivals.clear()
                original()
                applied.extend(batch)

            widget._flush = flush  # type: ignore[attr-defined]
        else:
            feed = BaselineFeed(widget, pilot)
            stream = feed.stream

            async def run() -> None:  # MarkdownStream._run, noting which deltas each append shows
                while await stream._new_markup.wait():
                    batch = arrivals[:]
                    arrivals.clear()
                    text = "".join(stream._pending)
                    stream._pending.clear()
                    stream._new_markup.clear()
                    await asyncio.shield(stream.markdown_widget.append(text))
                    applied.extend(batch)

            stream._task.cancel()  # type: ignore[union-attr]
            stream._task = asyncio.create_task(run())
        for delta in cut(realistic_markdown(2 * len(UNIT))):  # warm up: lexers, caches, first frames
            arrivals.append(time.perf_counter())
            await feed.write(delta)
        await feed.drain()
        await pilot.pause()
        lags.clear()
        gc.freeze()  # what a long-running app does once it is up: start-up objects never rescanned
        began = time.perf_counter()
        for number, delta in enumerate(deltas):
            delay = began + number / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            arrivals.append(time.perf_counter())
            await feed.write(delta)
        await feed.drain()
        await pilot.pause()
        if isinstance(feed, BaselineFeed):
            feed.stream._task.cancel()  # type: ignore[union-attr]
    return lags


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * fraction), len(ordered) - 1)]


# --- the real app and memory (each in a fresh process) ------------------------------------


def _child_env() -> dict[str, str]:
    scratch = tempfile.mkdtemp(prefix="bench-screen-")
    return {**os.environ, "NEOCODE_DATA_DIR": scratch, "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": ""}


def recording(text: str) -> bytes:
    """An OpenAI-style SSE recording that streams ``text`` in DELTA-character deltas."""
    def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
        body = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "model": "bench",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return b"data: " + json.dumps(body).encode() + b"\n\n"

    parts = [chunk({"role": "assistant", "content": ""})]
    parts += [chunk({"content": delta}) for delta in cut(text)]
    parts.append(chunk({}, "stop"))
    parts.append(b"data: [DONE]\n\n")
    return b"".join(parts)


def replay_seconds(text: str, *extra: str) -> float:
    """Wall time of ``neocode replay FILE --tui --headless --exit-when-done`` (the real app)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "answer.sse")
        path.write_bytes(recording(text))
        began = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "neocode_tui", "replay", str(path), "--tui", "--headless",
             "--exit-when-done", *extra],
            check=True, capture_output=True, env=_child_env(), cwd=folder,
        )
        return time.perf_counter() - began


async def app_cpu(chars: int) -> float:
    """CPU seconds the real app spends from its start-up until a ``chars``-character
    answer, streamed as fast as the scripted provider yields it, is all on screen."""
    from neocode_tui.cli.replay_tui import build_replay_app, until_played
    from neocode_tui.providers.scripted import SSEReplay

    with tempfile.TemporaryDirectory() as folder:
        app = build_replay_app(SSEReplay(recording(realistic_markdown(chars)), "openai"), "bench", None, Path(folder))
        async with app.run_test(size=SIZE):
            began = time.process_time()
            await until_played(app)
            return time.process_time() - began


def child(kind: str, *extra: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", kind, *extra],
        check=True, capture_output=True, text=True, env=_child_env(),
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the report ---------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, under a minute")
    parser.add_argument("--rounds", type=int, default=3, help="turns of the per-delta measurements (default 3)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child and args.child[0] == "app":
        print(json.dumps({"cpu": asyncio.run(app_cpu(int(args.child[1])))}))
        return
    if args.child:
        rest = args.child[1:]  # "lag": a fresh process, no heap left over from the other measurements
        lags = asyncio.run(lag(rest[0] == "ours", cut(realistic_markdown(int(rest[1]))), 2_000))
        print(json.dumps({"p50": percentile(lags, 0.5) * 1e3, "p95": percentile(lags, 0.95) * 1e3}))
        return

    long_chars = 40_000 if args.quick else 100_000
    small_chars = 10_000
    last_chars = 5_000 if args.quick else 10_000
    lag_chars = 8_000 if args.quick else 20_000
    markdown = realistic_markdown(long_chars)
    print(f"bench_screen: realistic Markdown in {DELTA}-character deltas, {SIZE[0]}x{SIZE[1]}, headless")

    contenders = {
        "ours": (True, markdown, False),
        "MarkdownStream": (False, markdown, False),
        "ours, one fence": (True, long_code(long_chars), False),
        "ours, write_file": (True, write_file_arguments(long_chars), True),
    }
    rows: dict[str, dict[str, float]] = {}
    for name, (ours, text, tool) in contenders.items():
        early: list[float] = []
        late: list[float] = []
        for _ in range(args.rounds if ours else 1):  # MarkdownStream takes minutes a run
            for size, costs in ((small_chars, early), (long_chars, late)):
                cost = asyncio.run(with_feed(ours, lambda feed, text=text, size=size: cost_at(feed, text, size), tool))
                costs.append(cost * 1e6)
        row = rows[name] = {"early": statistics.median(early), "late": statistics.median(late)}
        if not name.startswith("ours,"):
            row["rate"] = asyncio.run(
                with_feed(ours, lambda feed, text=text: rate_at_end(feed, text, long_chars, last_chars))
            )
            row.update(child("lag", "ours" if ours else "baseline", str(lag_chars)))
        print(f"  measured {name}", flush=True)

    print(f"\nCPU per delta (µs) while the answer grows to {small_chars:,} and to {long_chars:,} characters"
          f" (screen drawn every {WINDOW} deltas);\ndeltas/s as fast as possible over the last "
          f"{last_chars:,} characters of the {long_chars:,};\nlag from a delta's arrival to the frame "
          f"showing it, at 2,000 deltas/s ({lag_chars:,} characters)")
    per_10k = 10_000 / DELTA / 1e6  # µs per delta -> CPU seconds per 10,000 characters
    print(f"{'':18}{f'at {small_chars:,}':>10}{f'at {long_chars:,}':>12}{'ratio':>8}"
          f"{'s/10k at':>10}{'s/10k at':>10}{'deltas/s':>11}{'lag p50 ms':>12}{'lag p95 ms':>12}")
    print(f"{'':48}{f'{small_chars // 1000}k':>10}{f'{long_chars // 1000}k':>10}")
    for name, row in rows.items():
        line = (f"{name:18}{row['early']:10.0f}{row['late']:12.0f}{row['late'] / row['early']:8.2f}"
                f"{row['early'] * per_10k:10.3f}{row['late'] * per_10k:10.3f}")
        if "rate" in row:
            line += f"{row['rate']:11.0f}{row['p50']:12.1f}{row['p95']:12.1f}"
        print(line)
    ours, base = rows["ours"], rows["MarkdownStream"]
    print(f"ours vs MarkdownStream: per-delta at {long_chars:,} {base['late'] / ours['late']:.1f}x cheaper, "
          f"sustained {ours['rate'] / base['rate']:.1f}x faster, lag p95 {base['p95'] / ours['p95']:.1f}x shorter")
    print("goals: ratio <= 1.3, >= 5,000 deltas/s, lag p95 <= 50 ms")

    app = {chars: statistics.median(child("app", str(chars))["cpu"] for _ in range(args.rounds))
           for chars in (small_chars, long_chars)}
    print(f"\nthe real app (headless, as fast as possible), CPU per 10,000 characters: "
          f"{app[small_chars] / small_chars * 1e4:.3f} s for a {small_chars:,}-character answer, "
          f"{app[long_chars] / long_chars * 1e4:.3f} s for a {long_chars:,}-character one "
          f"(median of {args.rounds})")

    deltas = len(cut(markdown))
    fastest = replay_seconds(markdown)
    paced = replay_seconds(markdown[:lag_chars], "--rate", "2000")
    print(f"\nneocode replay --tui --headless --exit-when-done, the real app: {long_chars:,} characters "
          f"({deltas:,} deltas) in {fastest:.1f} s, {deltas / fastest:,.0f} deltas/s including start-up; "
          f"{lag_chars // DELTA:,} deltas at --rate 2000 in {paced:.1f} s "
          f"(ideal {lag_chars / DELTA / 2000:.1f} s + start-up)")

    print("\nstart-up: bench/bench_startup.py; long sessions: bench/bench_long_session.py")

if __name__ == "__main__":
    main()
