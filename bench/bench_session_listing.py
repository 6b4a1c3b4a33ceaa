"""How long listing a folder's saved sessions takes (``/resume``'s picker, ``neocode sessions``,
ACP's session/list), by how many sessions there are and how long they are.

Writes ``--sessions`` sessions (every tenth one long, ``--long`` messages; the others 40),
as ``SessionStore`` writes them, then lists them in fresh processes: the first listing
ever, a later one with nothing changed, and one after a prompt was added to ten of them
(what happens between two ``/resume``s). Each figure is the best of three processes.

    .venv/bin/python bench/bench_session_listing.py            # 200 sessions
    .venv/bin/python bench/bench_session_listing.py --sessions 1000 --long 10000

Goal: 200 sessions listed in under 50 ms once they have been listed before (the index beside
them: an unchanged file costs a ``stat``, a grown one the lines added), and the first listing
ever no slower than reading the files once, as listings did before the index.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_long_session import exchange  # noqa: E402


def write_sessions(workspace: Path, count: int, long: int) -> int:
    """``count`` sessions of ``workspace``; the bytes written."""
    from neocode_tui.agent.store import SessionStore
    from neocode_tui.chat import Message

    written = 0
    for number in range(count):
        store = SessionStore.create(workspace, provider="scripted", model="bench")
        messages = long if number % 10 == 0 else 40
        for n in range(messages // 4):
            for record in exchange(n):
                store.append_message(Message.model_validate(record))
        store.close()
        written += store.path.stat().st_size
    return written


def add_prompts(workspace: Path, count: int) -> None:
    """A prompt and its answer added to ``count`` of the sessions, as a resumed one would."""
    from neocode_tui.agent.store import SessionStore, list_sessions
    from neocode_tui.chat import Message

    for info in list_sessions(workspace)[:count]:
        store, _ = SessionStore.resume(info)
        store.append_message(Message(role="user", content="one more question"))
        store.append_message(Message(role="assistant", content="one more answer"))
        store.close()


def child() -> None:
    """In a fresh process: list once, print the seconds it took and how many were listed."""
    from neocode_tui.agent.store import list_sessions

    started = time.perf_counter()
    found = list_sessions(Path.cwd())
    print(time.perf_counter() - started, len(found))


def once(workspace: Path) -> tuple[float, int]:
    """One listing in a fresh process: seconds, sessions listed."""
    done = subprocess.run([sys.executable, __file__, "--child"], check=True, capture_output=True,
                          text=True, cwd=workspace, env=os.environ)
    seconds, count = done.stdout.split()
    return float(seconds), int(count)


def listing(workspace: Path) -> tuple[float, int]:
    return min(once(workspace) for _ in range(3))


def first_listing(workspace: Path, data: Path) -> tuple[float, int]:
    """The first listing ever: whatever a listing keeps on disk is removed before each run."""
    runs = []
    for _ in range(3):
        for kept in data.glob("sessions/*.json"):
            kept.unlink()
        runs.append(once(workspace))
    return min(runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--long", type=int, default=2000, help="messages in every tenth session")
    args = parser.parse_args()
    if args.child:
        child()
        return
    with tempfile.TemporaryDirectory(prefix="bench-listing-") as scratch:
        root = Path(scratch)
        data, workspace = root / "data", root / "work"
        workspace.mkdir()
        os.environ.update(NEOCODE_DATA_DIR=str(data), NEOCODE_CONFIG_DIR=str(root / "config"))
        written = write_sessions(workspace, args.sessions, args.long)
        print(f"{args.sessions} sessions, {written / 1e6:.1f} MB")
        seconds, count = first_listing(workspace, data)
        print(f"first listing:            {seconds * 1000:7.1f} ms  ({count} listed)")
        listing(workspace)  # what the first listing keeps, if anything
        seconds, count = listing(workspace)
        print(f"listed again, unchanged:  {seconds * 1000:7.1f} ms")
        add_prompts(workspace, 10)
        seconds = once(workspace)[0]
        print(f"after 10 prompts added:   {seconds * 1000:7.1f} ms  (the first listing after them)")


if __name__ == "__main__":
    main()
