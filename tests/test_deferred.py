"""What start-up's one deferral mechanism guarantees (neocode_tui/deferred.py): pieces run
in order, a thread piece leaves the loop free, a failing piece is reported and the rest
still run, a lazy module is imported on first use or by ``warm``, and the collector is
paused, then turned back on with what start-up built frozen."""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from neocode_tui import deferred
from neocode_tui.deferred import (
    AfterFirstFrame,
    Once,
    collections_paused,
    lazy,
    pause_collections,
    resume_collections,
    warm,
)
from tests.support.waits import PATIENCE, wait_until


async def test_pieces_run_in_order_and_a_thread_piece_leaves_the_loop_free() -> None:
    done: list[str] = []
    loop_ran = threading.Event()

    def in_thread() -> None:
        # Only the loop sets it: a blocked loop would leave this piece waiting forever.
        assert loop_ran.wait(PATIENCE), "the loop did not run while the thread piece did"
        done.append(f"thread piece in {threading.current_thread().name}")

    later = AfterFirstFrame(report=lambda problem: done.append(problem))
    later.add("first", lambda: done.append("first on the loop"))
    later.add("second", in_thread, in_thread=True)
    later.add("third", lambda: done.append("third on the loop"))
    running = asyncio.create_task(later.run())
    # The loop runs this wait while the thread piece waits for it: a loop held by the piece
    # would time out here.
    await wait_until(lambda: done == ["first on the loop"], what="the first piece")
    loop_ran.set()
    await asyncio.wait_for(running, PATIENCE)
    assert done[0] == "first on the loop"
    assert done[1].startswith("thread piece in ") and threading.main_thread().name not in done[1]
    assert done[2:] == ["third on the loop"]


async def test_a_failing_piece_is_reported_and_the_next_one_still_runs() -> None:
    reported: list[str] = []
    ran: list[str] = []

    def broken() -> None:
        raise ValueError("no such file")

    later = AfterFirstFrame(report=reported.append)
    later.add("reading the index", broken, in_thread=True)
    later.add("checking the theme", lambda: 1 / 0)
    later.add("the last piece", lambda: ran.append("last"))
    await asyncio.wait_for(later.run(), PATIENCE)  # raises nothing
    assert reported == [
        "reading the index failed: ValueError: no such file",
        "checking the theme failed: ZeroDivisionError: division by zero",
    ]
    assert ran == ["last"]


def test_once_computes_once_and_a_second_caller_waits_for_the_first() -> None:
    calls: list[str] = []
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        calls.append(threading.current_thread().name)
        started.set()
        assert release.wait(PATIENCE)
        return "settings"

    once = Once(slow)
    results: list[str] = []
    first = threading.Thread(target=lambda: results.append(once()), name="builder")
    first.start()
    assert started.wait(PATIENCE)
    second = threading.Thread(target=lambda: results.append(once()), name="waiter")
    second.start()
    release.set()
    first.join(PATIENCE)
    second.join(PATIENCE)
    assert results == ["settings", "settings"]
    assert calls == ["builder"]


def test_once_keeps_an_error_and_raises_it_to_each_caller() -> None:
    calls = []

    def bad() -> None:
        calls.append(1)
        raise OSError("unreadable config.toml")

    once = Once(bad)
    for _ in range(2):
        with pytest.raises(OSError, match="unreadable config.toml"):
            once()
    assert calls == [1]


@pytest.fixture
def module_on_path(tmp_path: Path) -> Iterator[str]:
    """A module of the test's own, not imported yet."""
    name = f"deferred_probe_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text("IMPORTED = True\nANSWER = 42\n")
    sys.path.insert(0, str(tmp_path))
    try:
        yield name
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)
        deferred._LAZY.remove(name)  # a later app's ``warm`` would not find it


def test_a_lazy_module_is_imported_on_first_use(module_on_path: str) -> None:
    probe = lazy(module_on_path)
    assert module_on_path not in sys.modules
    assert probe.ANSWER == 42
    assert module_on_path in sys.modules


def test_warm_imports_every_lazy_module(module_on_path: str) -> None:
    lazy(module_on_path)
    assert module_on_path not in sys.modules
    warm()
    assert sys.modules[module_on_path].IMPORTED


def test_collections_pause_then_resume_with_what_exists_frozen() -> None:
    was_enabled = gc.isenabled()
    try:
        pause_collections()
        assert not gc.isenabled()
        with collections_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # a bulk load leaves start-up's pause as it was
        built = [object() for _ in range(1000)]
        resume_collections()
        assert gc.isenabled()
        assert gc.get_freeze_count() >= len(built)
        with collections_paused():
            assert not gc.isenabled()
        assert gc.isenabled()
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()
        else:
            gc.disable()
