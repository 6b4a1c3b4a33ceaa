"""What the app costs on top of the agent: the offline tour with and without the screen.

Run: ``.venv/bin/python bench/bench_app.py [--tours 5] [--repeat 3]``

Both sides run the offline model's tour (stream, list a folder, read a file, an approved
edit, an answer) ``--tours`` times in a fresh folder each time:

- **loop**: ``AgentLoop.run`` with no screen, approvals answered yes by a function.
- **app**: the real ``NeoCodeApp`` headless (100x32): the prompt sent with Enter, the
  approval modal answered with ``y``, done when the run is over and the view has drawn it.

The ratio is what the screen adds (conversation view, status bar, modal, sessions). The
best of ``--repeat`` runs is kept for each side; CPU time is reported with wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from neocode_tui.agent.loop import AgentLoop
from neocode_tui.agent.loop_events import ApprovalDecision, ApprovalRequested
from neocode_tui.providers.offline import offline_provider
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.screens import ApprovalScreen

PROMPT = "Show me around this project"


def workspace(root: Path, n: int) -> Path:
    folder = root / f"project{n}"
    folder.mkdir()
    (folder / "README.md").write_text("# Bench\n\nA folder for the app benchmark.\n")
    return folder


async def loop_tours(root: Path, tours: int) -> None:
    async def yes(request: ApprovalRequested) -> ApprovalDecision:
        return ApprovalDecision(verdict="yes")

    for n in range(tours):
        loop = AgentLoop(offline_provider(), workspace(root, n), approver=yes)
        finished = await loop.run(PROMPT)
        assert finished.reason == "done", finished


TOUR_WALL: list[float] = []
"""Per app run: seconds from Enter to the answer drawn (start-up and exit left out)."""


async def app_tours(root: Path, tours: int) -> None:
    TOUR_WALL.append(0.0)
    for n in range(tours):
        folder = workspace(root, n)
        app = NeoCodeApp(Settings(provider="scripted"), offline_provider(), folder, remember_theme=False)
        async with app.run_test(size=(100, 32)) as pilot:
            app.prompt.insert(PROMPT)
            started = time.perf_counter()
            await pilot.press("enter")
            while not isinstance(app.screen, ApprovalScreen):
                await asyncio.sleep(0.001)
            await pilot.press("y")
            while app.working:
                await asyncio.sleep(0.001)
            await app.conversation.settled()
            TOUR_WALL[-1] += time.perf_counter() - started
        assert (folder / "NOTES.md").exists()


def measure(work: Callable[[Path, int], Awaitable[None]], tours: int, repeat: int) -> tuple[float, float]:
    """Best (wall, cpu) seconds over ``repeat`` runs, each in fresh folders."""
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as scratch:
            os.environ["NEOCODE_DATA_DIR"] = str(Path(scratch, "data"))
            wall, cpu = time.perf_counter(), time.process_time()
            asyncio.run(work(Path(scratch), tours))
            best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tours", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as config:
        os.environ["NEOCODE_CONFIG_DIR"] = config
        loop_wall, loop_cpu = measure(loop_tours, args.tours, args.repeat)
        app_wall, app_cpu = measure(app_tours, args.tours, args.repeat)
    per = args.tours
    print(f"offline tour x{per}, best of {args.repeat}")
    print(f"  loop alone : {loop_wall / per * 1000:7.1f} ms wall  {loop_cpu / per * 1000:7.1f} ms CPU per tour")
    print(f"  app        : {app_wall / per * 1000:7.1f} ms wall  {app_cpu / per * 1000:7.1f} ms CPU per tour,"
          " start-up and exit included")
    tour = min(TOUR_WALL) / per
    print(f"  app, Enter to answer drawn: {tour * 1000:7.1f} ms wall per tour")
    print(f"  ratio app/loop: {app_wall / loop_wall:.1f}x wall, {app_cpu / loop_cpu:.1f}x CPU;"
          f" Enter-to-answer/loop {tour * per / loop_wall:.1f}x wall")


if __name__ == "__main__":
    main()
