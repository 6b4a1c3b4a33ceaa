"""How fast the ``@`` picker answers on a large workspace.

Generates a tree of 100,000 files (in 2,000 folders, with a .gitignore'd build folder and a
hidden one that must not show up), then measures, from a cold start: the scan (``rg
--files``), building the index, the first completions after typing ``@`` (the time a user
waits: scan + build + search), and each following keystroke's search. Also the same in
the real app: from pressing ``@`` in the input until the picker lists files, and the
longest gap between two screen updates while the index is built (the UI never blocks).

    .venv/bin/python bench/bench_file_index.py [--files 100000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from neocode_tui.agent.extensions import FileIndex, Snapshot, list_files, rank

WORDS = ["src", "lib", "core", "api", "models", "views", "utils", "handlers", "client", "server"]


def generate(root: Path, count: int) -> None:
    """``count`` files, 50 to a folder, two to four folders deep, plus ignored ones."""
    (root / ".gitignore").write_text("build/\n")
    for extra in ("build", ".cache"):
        (root / extra).mkdir(parents=True, exist_ok=True)
        for i in range(100):
            (root / extra / f"ignored_{i}.py").write_text("")
    for folder_number in range(count // 50):
        parts = [WORDS[(folder_number // 10**level) % len(WORDS)] for level in range(2 + folder_number % 3)]
        folder = root.joinpath(*parts, f"pkg{folder_number}")
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(50):
            (folder / f"{WORDS[i % len(WORDS)]}_{folder_number}_{i}.py").write_text("")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


async def core(root: Path) -> None:
    started = time.perf_counter()
    files, _ = await list_files(root)
    scanned = time.perf_counter()
    snapshot = Snapshot.build(files)
    built = time.perf_counter()
    first = rank(snapshot, "")
    shown = time.perf_counter()
    assert not any(e.path.startswith(("build/", ".cache/")) for e in snapshot.entries)
    print(f"files listed: {len(files)}, entries with folders: {len(snapshot.entries)}")
    print(f"scan (rg --files): {ms(scanned - started)}")
    print(f"index build: {ms(built - scanned)}")
    print(f"scan + build + first search, all waited for: {ms(shown - started)} ({len(first)} shown)")
    timings = []
    for query in ("h", "ha", "han", "hand", "handl", "handler", "core_12", "api/pkg7", "zzzq"):
        start = time.perf_counter()
        rank(snapshot, query)
        timings.append(time.perf_counter() - start)
    print(f"search per keystroke: median {ms(statistics.median(timings))}, max {ms(max(timings))}")
    index = FileIndex(root)
    start = time.perf_counter()
    await index.refresh()
    print(f"FileIndex.refresh (scan + build in a thread): {ms(time.perf_counter() - start)}")


async def in_app(root: Path) -> None:
    from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
    from neocode_tui.settings.model import Settings
    from neocode_tui.tui.app import NeoCodeApp

    app = NeoCodeApp(
        Settings(provider="scripted"), ScriptedProvider([scripted_reply("ok")]), root,
        remember_theme=False, blink=False,
    )
    # Keys go in as the input inserts them: Pilot's press also waits for the app to be idle,
    # which a background scan delays by design, and that wait is not what a user sees.
    async with app.run_test(size=(100, 32)):
        ticks = _Ticker()
        index, picker = app.session.files, app.mention_picker
        start = time.perf_counter()
        app.prompt.insert("@")
        while not picker.entries:
            await asyncio.sleep(0.001)
        print(f"app: '@' typed at start-up to files listed: {ms(time.perf_counter() - start)}"
              f" (from the first {len(index.snapshot.entries)} entries of the scan under way)")
        await index.wait()
        print(f"app: whole index ready {ms(time.perf_counter() - start)} after '@'; longest "
              f"event-loop stall meanwhile: {ms(ticks.stop())}")
        await asyncio.sleep(0.2)  # the picker's search on the complete index
        ticks = _Ticker()
        timings = []
        for typed in range(1, len("handler") + 1):
            start = time.perf_counter()
            app.prompt.insert("handler"[typed - 1])
            while picker.shown_query != "handler"[:typed]:
                await asyncio.sleep(0.001)
            timings.append(time.perf_counter() - start)
        print(f"app: key to list updated on the whole index: median {ms(statistics.median(timings))},"
              f" max {ms(max(timings))}; longest event-loop stall: {ms(ticks.stop())}")


class _Ticker:
    """Measures the longest gap between two turns of the event loop (a 1 ms sleep each:
    a busy loop would keep Pilot from ever seeing the app idle)."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task = asyncio.create_task(self._tick())

    async def _tick(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self.longest = max(self.longest, now - last - 0.001)
            last = now

    def stop(self) -> float:
        self._task.cancel()
        return self.longest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) this folder")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = options.keep or Path(scratch) / "tree"
        if not root.exists() or not any(root.iterdir()):
            root.mkdir(parents=True, exist_ok=True)
            start = time.perf_counter()
            generate(root, options.files)
            print(f"generated {options.files} files in {time.perf_counter() - start:.1f} s")
        asyncio.run(core(root))
        asyncio.run(in_app(root))


if __name__ == "__main__":
    main()
