"""Searching the conversation in a long session: a query typed and a jump, in the real app.

In one process, the app resumes a 1,000-message session (250 exchanges as
``bench_long_session.py`` writes them, about 500 characters a message) and, as the baseline,
a 12-message one; in each, a word is typed into the search bar (Ctrl+F) letter by letter and
then Enter, n and N jump between its matches. The figures are medians of the time from the
key to the screen drawn; the ratio says what the session's length adds.

    .venv/bin/python bench/bench_transcript_search.py
    .venv/bin/python bench/bench_transcript_search.py --messages 10000

Goal: a key of the search under 1.5x the baseline at 1,000 messages (Pilot's wait for the
screen is most of either), the search alone (one pass over the conversation) under 10 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_long_session import drawn, write_session  # noqa: E402

SIZE = (120, 40)
QUERY = "reuse"
JUMPS = 20


async def measure(workspace: Path) -> dict[str, float]:
    from neocode_tui.settings.model import Settings
    from neocode_tui.tui.app import NeoCodeApp

    app = NeoCodeApp(Settings(provider="scripted"), workspace=workspace, resume="", remember_theme=False)
    typed: list[float] = []
    jumps: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await app.started_up.wait()
        view = app.conversation
        await drawn(view)
        await pilot.press("ctrl+f")
        for letter in QUERY:
            began = time.perf_counter()
            await pilot.press(letter)
            await drawn(view)
            typed.append(time.perf_counter() - began)
        for key in ["enter", *["n", "N"] * (JUMPS // 2)]:
            began = time.perf_counter()
            await pilot.press(key)
            await drawn(view)
            jumps.append(time.perf_counter() - began)
        found = view.finder.found()
        began = time.perf_counter()
        for _ in range(JUMPS):
            view.finder.search(QUERY)  # the search alone: one pass over the conversation
        search_s = (time.perf_counter() - began) / JUMPS
    return {"type_s": statistics.median(typed), "jump_s": statistics.median(jumps), "search_s": search_s,
            "matches": found.matches, "blocks": len(view.blocks)}


def run(count: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-search-") as scratch:
        root = Path(scratch)
        workspace = root / "work"
        workspace.mkdir()
        os.environ["NEOCODE_CONFIG_DIR"] = str(root / "config")
        write_session(root / "data", workspace, count)
        return asyncio.run(measure(workspace))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=1_000)
    args = parser.parse_args()
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        os.environ.pop(name, None)
    os.environ["NEOCODE_NOTIFY"] = "off"
    base, long = run(12), run(args.messages)
    print(f"bench_transcript_search: the real app, {SIZE[0]}x{SIZE[1]}, headless, query {QUERY!r}")
    print(f"{'messages':>9}{'blocks':>8}{'matches':>9}{'a letter':>10}{'a jump':>9}{'search alone':>14}")
    for count, row in ((12, base), (args.messages, long)):
        print(f"{count:9,}{row['blocks']:8,.0f}{row['matches']:9,.0f}{row['type_s'] * 1e3:8.1f}ms"
              f"{row['jump_s'] * 1e3:7.1f}ms{row['search_s'] * 1e3:12.2f}ms")
    print(f"{args.messages:,} messages against 12: a letter {long['type_s'] / base['type_s']:.2f}x, "
          f"a jump {long['jump_s'] / base['jump_s']:.2f}x (medians, key to screen drawn, Pilot's own "
          f"wait for the screen included); the search alone {long['search_s'] * 1e3:.2f} ms")
    print("goal: a key of the search under 1.5x the baseline at 1,000 messages; the search alone < 10 ms")


if __name__ == "__main__":
    main()
