"""The @ picker's file index: ripgrep's view of a real temporary tree, fuzzy ranked."""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

from neocode_tui.agent.extensions.file_index import FileIndex


def tree(root: Path, files: list[str]) -> None:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")


async def scanned(root: Path) -> FileIndex:
    index = FileIndex(root)
    await index.refresh()
    return index


async def test_ignored_and_hidden_paths_are_left_out_and_folders_listed(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    tree(tmp_path, [
        "src/app.py", "src/util/strings.py", "README.md", "build/out.py", "debug.log",
        ".hidden/secret.py", "node_modules/pkg/index.js", ".env",
    ])
    index = await scanned(tmp_path)
    paths = {entry.path for entry in index.snapshot.entries}
    assert paths == {"src/", "src/util/", "src/app.py", "src/util/strings.py", "README.md"}
    assert [entry.is_dir for entry in index.search("util")][:1] == [True]


async def test_gitignore_applies_outside_a_repository_too(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("dist/\n")
    tree(tmp_path, ["dist/bundle.js", "main.js"])
    index = await scanned(tmp_path)
    assert [entry.path for entry in index.snapshot.entries] == ["main.js"]


async def test_ranking_prefers_the_name_then_a_short_shallow_path(tmp_path: Path) -> None:
    tree(tmp_path, [
        "docs/guide/application_notes.md", "src/app.py", "tests/test_app.py",
        "src/deep/nested/more/app.py", "apple/readme.txt", "src/mapper.py",
    ])
    index = await scanned(tmp_path)
    ranked = [entry.path for entry in index.search("app.py")]
    assert ranked[:3] == ["src/app.py", "src/deep/nested/more/app.py", "tests/test_app.py"]
    assert [entry.path for entry in index.search("tstapp")][0] == "tests/test_app.py"
    assert index.search("zzzz") == []
    top = [entry.path for entry in index.search("")]
    assert top[:4] == ["apple/", "docs/", "src/", "tests/"]  # nothing typed: the top folder


async def test_a_rescan_on_demand_sees_new_files_and_keeps_answering_meanwhile(tmp_path: Path) -> None:
    tree(tmp_path, ["one.py"])
    index = await scanned(tmp_path)
    assert index.refresh_if_stale() is None  # just scanned: no new scan
    tree(tmp_path, ["two.py"])
    index.invalidate()
    scan = index.refresh_if_stale()
    assert scan is not None
    assert [entry.path for entry in index.search("py")] == ["one.py"]  # the old scan answers
    await scan
    assert sorted(entry.path for entry in index.search("py")) == ["one.py", "two.py"]


async def test_a_large_tree_answers_before_the_scan_ends(tmp_path: Path) -> None:
    tree(tmp_path, [f"pkg{i // 100}/mod_{i}.py" for i in range(12_000)])
    index = FileIndex(tmp_path)
    started = time.monotonic()
    index.refresh()
    while not index.ready:
        await asyncio.sleep(0.001)
    early = index.snapshot
    assert early.partial and 0 < len(early.entries)
    assert index.search("mod_1") != []
    await index.wait()
    assert not index.snapshot.partial
    assert sum(not entry.is_dir for entry in index.snapshot.entries) == 12_000
    assert time.monotonic() - started < 10
