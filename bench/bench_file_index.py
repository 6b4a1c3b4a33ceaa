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

from neocode_tui.agent.file_index import FileIndex, Snapshot, list_files, rank

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
    print(f"first completions after '@' from a cold start: {ms(shown - started)} ({len(first)} shown)")
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
    from neocode_tui.config import Settings
    from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
    from neocode_tui.tui.app import NeoCodeApp

    app = NeoCodeApp(
        Settings(provider="scripted"), ScriptedProvider([scripted_reply("ok")]), root,
        remember_theme=False, blink=False,
    )
    async with app.run_test(size=(100, 32)) as pilot:
        gaps: list[float] = []
        last = time.perf_counter()
        start = last
        await pilot.press("@")
        picker = app.mention_picker
        while not picker.entries:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now
        print(f"app: '@' pressed at start-up to files listed: {ms(time.perf_counter() - start)}")
        print(f"app: longest event-loop stall meanwhile: {ms(max(gaps, default=0) - 0.005)}")
        for key in "handler":
            start = time.perf_counter()
            before = picker.query
            await pilot.press(key)
            while picker.query == before:
                await asyncio.sleep(0.002)
            print(f"app: key {key!r} to list updated: {ms(time.perf_counter() - start)}")


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
