"""What start-up puts off until the first frame is on screen, and how: the one mechanism.

The first frame comes before everything it does not need, and the keyboard must answer
within a few milliseconds of it. So what start-up puts off runs after that frame without
holding the event loop:

- **modules**: ``lazy("package.module")`` at module level stands for a module imported on
  its first use; ``warm()`` imports every such module in a thread after the first frame,
  so the first use (F1, an approval) does not wait for it either;
- **work**: an ``AfterFirstFrame`` lists the pieces, each on the loop or in a thread, run
  in order with the loop free between them; a piece that fails is reported, never raised
  into the screen; ``Once`` is a piece's result that a thread and the loop may both ask
  for (the second waits for the first);
- **the garbage collector**: ``pause_collections()`` as the process starts (start-up
  builds what lives as long as the app, and collections only slow it down), then
  ``resume_collections()`` once start-up has built it: frozen out of the collector's
  sight, it no longer makes full collections stall frames while a long answer streams.
  ``collections_paused()`` does the same around a bulk load that frees nothing.

An import that is put off only to start faster goes through ``lazy``. An import inside a
function may stay for another reason: it breaks an import cycle (a module that imports
the one importing it), it keeps the core (``neocode_tui.agent``, the providers) from
importing Textual, or it picks what one command line runs (``neocode_tui/cli/dispatch.py``
imports only the subcommand asked for, ``providers.make_provider`` only the dialect used).
"""

from __future__ import annotations

import gc
import importlib
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

_LAZY: list[str] = []
"""Every module named by ``lazy``, in the order named: what ``warm`` imports."""


class _LazyModule:
    """A module's stand-in: its first attribute read imports it (importing is thread-safe)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def lazy(name: str) -> Any:
    """The module ``name``, imported when first used. Typed through ``TYPE_CHECKING``::

        if TYPE_CHECKING:
            from neocode_tui.tui.screens import key_help
        else:
            key_help = lazy("neocode_tui.tui.screens.key_help")
    """
    if name not in _LAZY:
        _LAZY.append(name)
    return _LazyModule(name)


if not TYPE_CHECKING:
    asyncio = lazy("asyncio")  # only ``AfterFirstFrame.run`` needs it: not ``neocode --version``


def face(package: str, names: dict[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """A package's ``__getattr__``: each public name is imported from its module on first
    use, so a face costs nothing until a name is read and two packages may use each other's
    faces without an import cycle. ``names`` maps each module of the package to the names it
    gives the face: the package's ``__all__``, typed by ``TYPE_CHECKING`` imports of them::

        if not TYPE_CHECKING:
            __getattr__ = face(__name__, {"agent_session": ("AgentSession",)})
    """
    homes = {name: module for module, given in names.items() for name in given}

    def __getattr__(name: str) -> Any:
        module = homes.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


def warm() -> None:
    """Imports every lazy module (in a thread, after the first frame), and every name of a
    package's face (``face``), which a package's import alone does not load."""
    for name in list(_LAZY):
        module = importlib.import_module(name)
        for attribute in getattr(module, "__all__", ()):
            getattr(module, attribute)


class Once(Generic[T]):
    """``work``'s result, computed once by whoever asks first; a caller that asks while
    another computes it waits for that one. An exception is kept and raised to each."""

    def __init__(self, work: Callable[[], T]) -> None:
        self._work = work
        self._lock = threading.Lock()
        self._done = False
        self._value: T | None = None
        self._error: BaseException | None = None

    def __call__(self) -> T:
        with self._lock:
            if not self._done:
                try:
                    self._value = self._work()
                except Exception as exc:
                    self._error = exc
                self._done = True
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]


class _Piece(NamedTuple):
    what: str
    work: Callable[[], object]
    in_thread: bool


class AfterFirstFrame:
    """The work start-up puts off, run in the order added once the first frame is drawn.

    A piece ``in_thread`` runs in a thread while the loop keeps answering keys; the others
    run on the loop, each a short step, the loop free between them. A piece that raises
    is ``report``ed ("WHAT failed: ...") and the next one runs."""

    def __init__(self, report: Callable[[str], None]) -> None:
        self._report = report
        self._pieces: list[_Piece] = []

    def add(self, what: str, work: Callable[[], object], *, in_thread: bool = False) -> None:
        self._pieces.append(_Piece(what, work, in_thread))

    async def run(self) -> None:
        while self._pieces:
            piece = self._pieces.pop(0)
            try:
                if piece.in_thread:
                    with _loop_first():
                        await asyncio.to_thread(piece.work)
                else:
                    await asyncio.sleep(0)  # what came in meanwhile (a key) goes first
                    piece.work()
            except Exception as exc:
                self._report(f"{piece.what} failed: {type(exc).__name__}: {exc}")


SWITCH_INTERVAL = 0.0005
"""Seconds a thread waits for the interpreter lock before the one holding it must let go,
while a piece runs in a thread (Python's default is 5 ms): the loop, waiting for it after
every wait for input, gets it back within that and a key's echo does not queue behind the
thread's imports."""


@contextmanager
def _loop_first() -> Iterator[None]:
    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, SWITCH_INTERVAL))
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def pause_collections() -> None:
    """At process start: no collections while start-up builds what lives as long as the app."""
    gc.disable()


def resume_collections() -> None:
    """Once start-up has built it: what exists now leaves the collector's sight, and
    collections run again (on what is made from here on)."""
    gc.freeze()
    gc.enable()


@contextmanager
def collections_paused() -> Iterator[None]:
    """No collections during a bulk load that keeps everything it makes (a session's
    records): left on, the collector walks them again and again as they pile up."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
