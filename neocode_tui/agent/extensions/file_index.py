"""The workspace's files and folders for the ``@`` picker, and fuzzy search over them.

The list comes from ``rg --files`` (the ripgrep wheel's binary, as the glob tool uses):
it honours ``.gitignore`` (also outside a git repository), leaves hidden files and folders
out, never follows symlinks, and lists 100,000 files in a fraction of a second. Folders
are derived from the files' paths.

The index is rebuilt by a cheap re-scan on demand rather than kept live by a watcher:
a scan of a 100,000-file tree costs about as much as one keystroke's search
(``bench/bench_file_index.py``), while a recursive watcher needs one inotify watch per
folder (the default limit is often 8,192) and work on every file the agent or a build
writes. ``refresh`` runs in the background; searches meanwhile answer from the last
complete scan, so typing never waits for one.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, NamedTuple

from neocode_tui.agent.tools.search import IGNORED_DIRS, rg_binary
from neocode_tui.agent.workspace import printable_name
from neocode_tui.deferred import lazy

if TYPE_CHECKING:
    from rapidfuzz import fuzz, process
else:  # after the first frame, or on first use (neocode_tui/deferred.py)
    fuzz, process = lazy("rapidfuzz.fuzz"), lazy("rapidfuzz.process")

MAX_FILES = 300_000
"""Files kept from a scan; past this the picker shows the first ones ripgrep found."""
SCAN_LIMIT = 30.0
"""Seconds a scan may take before it is stopped (a network drive, a huge tree)."""
STALE_AFTER = 2.0
"""Seconds after which opening the picker starts a re-scan (its results show when done)."""
EARLY_FILES = 2_000
"""Files after which a first scan already answers searches (marked as partial)."""
CHUNK = 1 << 16
TOP = 200
GOOD = 90 + 8
"""A name match this good (bonus included) needs no look at the whole paths."""
SLICE = 8_000
"""Paths matched per rapidfuzz call (about 5 ms each)."""
CANDIDATES = 200
"""Fuzzy matches taken from each pass before they are ranked by path shape."""
_CONTROL = re.compile(rb"[\x01-\x1f\x7f]")
SCAN_FLAGS = [
    "--files", "--null", "--no-config", "--no-messages", "--no-require-git", "--color=never",
    *(f"--glob=!{name}" for name in IGNORED_DIRS),
]


class IndexEntry(NamedTuple):
    path: str
    """Relative, with ``/``; a folder's ends with ``/``."""
    is_dir: bool


@dataclass(frozen=True)
class Snapshot:
    """One complete scan, never changed after it is built: searches in threads share it."""

    entries: tuple[IndexEntry, ...]
    paths: tuple[str, ...]
    """Lower-case paths, folders without their ``/``, for matching."""
    names: tuple[str, ...]
    """Lower-case last components, for matching."""
    top: tuple[IndexEntry, ...]
    """What the picker shows before anything is typed: the top folder's entries first."""
    taken_at: float
    partial: bool = False
    """Not every file is in it: the first scan is still under way, or there were more than
    ``MAX_FILES``."""

    @classmethod
    def build(cls, names: list[bytes], partial: bool = False) -> Snapshot:
        """From ripgrep's raw names: slow enough for 100,000 files to be run in a thread."""
        files = _decoded(names)
        folders: set[str] = set()
        for path in files:
            cut = path.rfind("/")
            while cut > 0:
                folder = path[:cut]
                if folder in folders:
                    break
                folders.add(folder)
                cut = path.rfind("/", 0, cut)
        # Shallow, short paths first: among equal matches rapidfuzz keeps the earlier ones.
        # (depth, is a file, length, path) tuples sort in C, much faster than a key function.
        rows = [(folder.count("/"), False, len(folder), folder + "/") for folder in folders]
        rows += [(path.count("/"), True, len(path), path) for path in files]
        rows.sort()
        entries = tuple([IndexEntry(path, not is_file) for _, is_file, _, path in rows])
        paths = tuple([path.rstrip("/").lower() for _, _, _, path in rows])
        last_parts = tuple([path.rsplit("/", 1)[-1] for path in paths])
        # With nothing typed: the shallowest entries, folders first, by name.
        top = tuple(row[3] for row in sorted(rows[:TOP], key=lambda row: (row[0], row[1], row[3])))
        return cls(entries, paths, last_parts, tuple(IndexEntry(path, path.endswith("/")) for path in top),
                   time.monotonic(), partial)


EMPTY = Snapshot((), (), (), (), 0.0)


class FileIndex:
    """The files of ``root``; ``search`` answers at once, ``refresh`` re-scans behind it."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.snapshot = EMPTY
        self.error = ""
        """Why the last scan failed, if it did (shown in the picker)."""
        self._scan: asyncio.Task[None] | None = None
        self._dirty = True

    @property
    def scanning(self) -> bool:
        return self._scan is not None and not self._scan.done()

    @property
    def running_scan(self) -> asyncio.Task[None] | None:
        return self._scan if self.scanning else None

    @property
    def ready(self) -> bool:
        """A scan has completed (its results may be a little old)."""
        return self.snapshot is not EMPTY

    def invalidate(self) -> None:
        """Files changed (the agent wrote some): the next ``refresh_if_stale`` re-scans."""
        self._dirty = True

    def refresh_if_stale(self) -> asyncio.Task[None] | None:
        """Start a background re-scan when the index is missing, marked changed or older
        than ``STALE_AFTER``; the running scan when there is one."""
        if self.scanning:
            return self._scan
        if self._dirty or time.monotonic() - self.snapshot.taken_at > STALE_AFTER:
            return self.refresh()
        return None

    def refresh(self) -> asyncio.Task[None]:
        """Re-scan in the background (the running scan, if one is under way)."""
        if self._scan is None or self._scan.done():
            self._dirty = False
            self._scan = asyncio.create_task(self._rescan())
        return self._scan

    async def wait(self) -> None:
        """Until the scan under way, if any, has finished."""
        if self._scan is not None:
            await asyncio.wait([self._scan])

    async def _rescan(self) -> None:
        first = not self.ready

        def early(names: list[bytes]) -> None:
            # Only a first scan shows part of the tree: a re-scan keeps the complete old one.
            if first:
                self.snapshot = Snapshot.build(names, partial=True)

        try:
            names, partial = await asyncio.wait_for(list_files(self.root, early), SCAN_LIMIT)
        except (OSError, TimeoutError) as exc:
            self.error = f"could not list the files: {exc or 'timed out'}"
            return
        self.snapshot = await asyncio.to_thread(Snapshot.build, names, partial)
        self.error = ""

    async def aclose(self) -> None:
        if self._scan is not None and not self._scan.done():
            self._scan.cancel()
            await asyncio.wait([self._scan])

    def search(self, query: str, limit: int = 50) -> list[IndexEntry]:
        return rank(self.snapshot, query, limit)


async def list_files(
    root: Path, early: Callable[[list[bytes]], None] | None = None
) -> tuple[list[bytes], bool]:
    """The names of the files ripgrep sees under ``root``, and whether there were more
    than ``MAX_FILES``. ``early`` gets the first ``EARLY_FILES`` while the scan
    goes on, so a picker opened at start-up has something to show at once."""
    rg = await asyncio.create_subprocess_exec(
        rg_binary(), *SCAN_FLAGS, cwd=root,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert rg.stdout is not None
    names: list[bytes] = []
    pending = b""
    try:
        while chunk := await rg.stdout.read(CHUNK):
            *done, pending = (pending + chunk).split(b"\0")
            if early is not None and len(names) < EARLY_FILES <= len(names) + len(done):
                early(names + done)
            names += done
        await rg.wait()
    finally:
        if rg.returncode is None:
            rg.kill()
            await rg.wait()
    return names[:MAX_FILES], len(names) > MAX_FILES


def rank(snapshot: Snapshot, query: str, limit: int = 50) -> list[IndexEntry]:
    """The best ``limit`` entries for ``query``: how well it matches the name or the whole
    path (rapidfuzz), then the path's shape (a name that starts with the query, a short
    path, few folders deep)."""
    query = query.strip().lower()
    entries = snapshot.entries
    if not query:
        return list(snapshot.top[:limit])
    scores: dict[int, float] = {}
    _match(query, snapshot.names, 8.0, scores)
    # The whole paths cost twice as much: they are matched when the query names folders,
    # or when the names alone gave too few good matches ("srcapp" for src/app.py).
    if "/" in query or sum(score >= GOOD for score in scores.values()) < limit:
        _match(query, snapshot.paths, 0.0, scores)
    ranked = sorted(scores, key=lambda i: -_shaped(scores[i], query, snapshot, i))
    return [entries[i] for i in ranked[:limit]]


def _match(query: str, choices: tuple[str, ...], bonus: float, scores: dict[int, float]) -> None:
    """Add each choice's best score for ``query`` to ``scores`` (by index)."""
    # In slices: rapidfuzz holds the GIL while it works, so a search in a thread lets the
    # screen go on only between calls.
    for start in range(0, len(choices), SLICE):
        for choice, score, index in process.extract(
            query, choices[start : start + SLICE], scorer=fuzz.partial_ratio,
            limit=CANDIDATES, score_cutoff=60,
        ):
            # partial_ratio finds the shorter string in the longer: "api" in "app.py" is no
            # match for "app.py", so a shorter choice scores for what it covers.
            score = score * min(1.0, len(choice) / len(query)) + bonus
            scores[start + index] = max(scores.get(start + index, 0.0), score)


def _shaped(score: float, query: str, snapshot: Snapshot, index: int) -> float:
    name, path = snapshot.names[index], snapshot.paths[index]
    stem = PurePosixPath(name).stem
    if name == query or stem == query:
        score += 20
    elif name.startswith(query):
        score += 10
    elif query in path:
        score += 5
    return score - 1.5 * path.count("/") - len(path) / 40


def _decoded(names: list[bytes]) -> list[str]:
    """Printable names; all at once when the whole listing is plain ASCII (the usual case)."""
    joined = b"\0".join(names)
    if joined.isascii() and not _CONTROL.search(joined):
        return joined.decode("ascii").split("\0") if names else []
    return [printable_name(os.fsdecode(name)) for name in names]
