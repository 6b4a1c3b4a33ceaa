"""What scrubbing a streamed reply costs: the same stream collected with and without it.

Run: ``.venv/bin/python bench/bench_stream_scrub.py [--chunks 20000] [--secrets 8] [--repeat 5]``

The stream is ``bench_stream``'s (text in 4-character deltas, three interleaved tool calls,
usage), decoded and parsed once before the clock starts, so what is timed is what runs per
event where the stream fans out:

- **plain**: ``collect`` draining the events, as without secrets;
- **scrubbed**: ``collect`` draining ``Secrets.stream`` of them, with ``--secrets`` keys
  of 40 to 160 characters (a user with several profiles, MCP tokens and a GITHUB_TOKEN);
- **full path**: bytes to a collected turn (SSE, JSON, dialect, collector), plain and
  scrubbed: the ratio a user's stream actually pays.

Each is run ``--repeat`` times, in turns, and the best time is kept; the scrubbed turn is checked to
equal the plain one (the stream holds no key).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import string
import time
from collections.abc import AsyncIterator, Callable

from bench_stream import make_stream, reads_of

from neocode_tui.collector import CollectedTurn, collect
from neocode_tui.events import StreamEvent
from neocode_tui.known_secrets import Secrets
from neocode_tui.providers.dialect import CallIds, EventPump
from neocode_tui.providers.openai import OpenAIDialect


def make_secrets(count: int) -> Secrets:
    rng = random.Random(11)
    alphabet = string.ascii_letters + string.digits
    heads = ("sk-proj-", "sk-ant-api03-", "ghp_", "hf_", "")
    return Secrets(keys=[
        heads[n % len(heads)] + "".join(rng.choice(alphabet) for _ in range(40 + 120 * n // max(1, count)))
        for n in range(count)
    ])


def events_of(reads: list[bytes]) -> list[StreamEvent]:
    pump = EventPump(OpenAIDialect(CallIds()))
    return [event for read in reads for event in pump.feed(read)] + pump.close()


async def replay(events: list[StreamEvent]) -> AsyncIterator[StreamEvent]:
    for event in events:
        yield event


async def parsed(reads: list[bytes]) -> AsyncIterator[StreamEvent]:
    pump = EventPump(OpenAIDialect(CallIds()))
    for read in reads:
        for event in pump.feed(read):
            yield event
    for event in pump.close():
        yield event


def best_of(repeat: int, runs: dict[str, Callable[[], CollectedTurn]]) -> dict[str, tuple[float, CollectedTurn]]:
    """Each run's best time; the runs take turns, so a busy machine slows them alike."""
    best = {label: (float("inf"), CollectedTurn()) for label in runs}
    for _ in range(repeat):
        for label, run in runs.items():
            started = time.perf_counter()
            turn = run()
            best[label] = (min(best[label][0], time.perf_counter() - started), turn)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=20000)
    parser.add_argument("--secrets", type=int, default=8)
    parser.add_argument("--read", type=int, default=1024, help="bytes per network read")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    reads = reads_of(make_stream(args.chunks), args.read)
    events = events_of(reads)
    secrets = make_secrets(args.secrets)
    runs: dict[str, Callable[[], CollectedTurn]] = {
        "plain": lambda: asyncio.run(collect(replay(events))),
        "scrubbed": lambda: asyncio.run(collect(secrets.stream(replay(events)))),
        "full path, plain": lambda: asyncio.run(collect(parsed(reads))),
        "full path, scrubbed": lambda: asyncio.run(collect(secrets.stream(parsed(reads)))),
    }
    results = best_of(args.repeat, runs)
    turns = [turn.model_dump() for _, turn in results.values()]
    assert all(turn == turns[0] for turn in turns), "scrubbing changed a stream with no key in it"

    print(f"{len(events)} events, {args.secrets} secrets; best of {args.repeat}")
    print(f"{'':22} {'seconds':>8} {'events/s':>10} {'µs/event':>9}")
    for label, (seconds, _) in results.items():
        print(f"{label:22} {seconds:8.3f} {len(events) / seconds:10,.0f} {seconds / len(events) * 1e6:9.2f}")
    print(f"ratio scrubbed/plain: events only {results['scrubbed'][0] / results['plain'][0]:.2f}x, "
          f"full path {results['full path, scrubbed'][0] / results['full path, plain'][0]:.2f}x")


if __name__ == "__main__":
    main()
