"""Ending every process a command started, wherever it went, with none left behind.

Killing the command's process group misses a child that called ``setsid`` (or ``setpgid``),
and once the shell has exited such a child is re-parented to init, out of reach. So on
Linux this process becomes a child subreaper, and so does each command's first process
(``in_child``, run between fork and exec): an orphan is re-parented to the nearest living
subreaper above it, so while the command's first process lives every process of the
command stays below it, whatever it forks, double-forks or moves to a session of its own.
Once that process has exited, its orphans come to this process, and are told from our
other children by a marker in their environment that their descendants inherit (a process
that cleared its environment is still found through its parent, or below the first one).

The kill freezes before it kills: it sends SIGSTOP to every process of the command, from
the top down, and looks again until every one of them is stopped; a stopped process (or
one with a stop pending) cannot fork, so none can appear after the last look. Then every
one is sent SIGKILL, and the kill waits until they are gone and the dead are reaped. A
process seen once stays in the kill even when it can no longer be read (it is exiting,
or between exec and its new environment). A shell that is stopped first cannot go on to
the next command of its line (``sleep 30; rm -rf build``) when its foreground child dies.

What cannot be guaranteed: a process that cleared its environment and was orphaned after
the command's first process exited (it is our child then, like any other). A sandboxed
command runs in its own pid namespace, which ends whole with its init, so nothing of it
escapes at all. Elsewhere (no subreaper, no ``/proc`` child lists) only the process group
is killed.
"""

from __future__ import annotations

import atexit
import functools
import os
import secrets
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from neocode_tui.deferred import lazy

if TYPE_CHECKING:
    import ctypes
else:
    ctypes = lazy("ctypes")  # loaded by the first command's environment, before its fork

MARKER = "NEOCODE_COMMAND"
"""The environment variable that tags a command's processes."""
KILL_WAIT = 20.0
"""Seconds to keep stopping, killing and reaping before giving up on a process that will
not die (one in uninterruptible sleep): far more than a tree of thousands takes on a
machine with every core busy."""
PR_SET_CHILD_SUBREAPER = 36
LINUX = sys.platform.startswith("linux")
HALTED = frozenset("TtZX")
"""/proc states of a process that cannot fork: stopped, traced, dead."""
DEAD = frozenset("ZX")

_live: set[ProcessTree] = set()
_subreaper = False


class _Entry(NamedTuple):
    parent: int
    state: str
    group: int
    started: int
    """Start time since boot, in clock ticks: a pid with another one is another process."""


_Table = dict[int, _Entry]


class ProcessTree:
    """The processes of one command: give it ``environment`` (and ``in_child`` as the
    ``preexec_fn``) when starting the command, call ``started`` with the command's pid, and
    ``kill`` to end all of them.

    It counts as live from ``environment`` on: the command runs before whoever started it
    hears its pid, and ``kill_all`` in that moment finds it by its marker."""

    def __init__(self) -> None:
        self._marker = secrets.token_hex(8)
        self._entry = f"{MARKER}={self._marker}".encode()
        self.root: int | None = None

    def environment(self, base: dict[str, str]) -> dict[str, str]:
        become_subreaper()
        _live.add(self)
        return {**base, MARKER: self._marker}

    def started(self, pid: int) -> None:
        self.root = pid

    def kill(self) -> None:
        """Stop every process of the command, then SIGKILL them all, the shell too, and
        wait until they are gone. Safe to call more than once, and when all have already
        exited."""
        if not _subreaper:
            if self.root is not None:
                _signal_group(self.root, signal.SIGKILL)
            _live.discard(self)
            return
        deadline = time.monotonic() + KILL_WAIT
        known: dict[int, int] = {}
        self._signal_until(signal.SIGSTOP, HALTED, known, deadline)
        self._signal_until(signal.SIGKILL, DEAD, known, deadline)
        while self._reap(_process_table(), known) and time.monotonic() < deadline:
            time.sleep(0.005)
        _live.discard(self)

    def _signal_until(self, signum: int, states: frozenset[str], known: dict[int, int], deadline: float) -> None:
        """Send ``signum`` to every process of the command, from the top down, and look
        again until each is in one of ``states`` or asleep in the kernel with the signal
        sent (it acts on it before it runs again: a parent waiting in ``vfork`` for a child
        that was stopped first), or the deadline passes."""
        sent: set[int] = set()
        while True:
            table = _process_table()
            members = self._members(table, known)
            if self.root is None:  # still starting: the shell is the first of them we started
                self.root = _first_started([pid for pid in members if table[pid].parent == os.getpid()], table)
            self._reap(table, known)
            waiting = [pid for pid in members
                       if table[pid].state not in states and not (table[pid].state == "D" and pid in sent)]
            if not waiting:
                return
            if self.root in members:  # not reaped yet, so its group's id is still its own
                _signal_group(self.root, signum)
            for pid in waiting:
                try:
                    os.kill(pid, signum)
                except ProcessLookupError:
                    pass
            sent.update(waiting)
            if time.monotonic() > deadline:
                return
            time.sleep(0.001)

    def _members(self, table: _Table, known: dict[int, int]) -> list[int]:
        """The command's processes, each parent before its children: those marked, those
        seen before, and everything below them. Adds them to ``known``."""
        children: dict[int, list[int]] = {}
        for pid, entry in table.items():
            children.setdefault(entry.parent, []).append(pid)
        members: dict[int, None] = {}  # ordered: the walk's order, from the top down
        for pid in _below(os.getpid(), children):
            if pid in members:
                continue
            seen = known.get(pid) == table[pid].started
            if seen or self._marked(pid):
                members[pid] = None
                members.update(dict.fromkeys(_below(pid, children)))
        known.update((pid, table[pid].started) for pid in members)
        return list(members)

    def _marked(self, pid: int) -> bool:
        try:
            return self._entry in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:  # gone, or not ours to read
            return False

    def _reap(self, table: _Table, known: dict[int, int]) -> bool:
        """Collect our dead children from this command (not the shell: asyncio waits for
        it). True while one of its processes is still in the table: dying, or dead under
        a parent that is dying and will pass it on to us."""
        me = os.getpid()
        for pid, entry in table.items():
            ours = known.get(pid) == entry.started or entry.group == self.root
            if entry.state == "Z" and entry.parent == me and pid != self.root and ours:
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
        return any(known.get(pid) == entry.started for pid, entry in table.items() if pid != self.root)


def in_child() -> None:
    """The ``preexec_fn`` of a command's first process: it becomes the subreaper of the
    command's processes, so that none is re-parented out of its tree while it runs (the
    attribute holds across exec)."""
    if _subreaper:  # and so the C library is loaded already
        _libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants (Linux; once, idempotent).
    Also ends every command still running when the interpreter exits."""
    global _subreaper
    if not _subreaper and LINUX and Path(f"/proc/self/task/{os.getpid()}/children").exists():
        _subreaper = _libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        if _subreaper:
            atexit.register(kill_all)
    return _subreaper


def kill_all() -> None:
    """End every command still running, whole trees. For a front end that must exit now
    (SIGTERM, SIGHUP) and cannot wait for its runs to be cancelled."""
    for tree in list(_live):
        tree.kill()


def _process_table() -> _Table:
    """pid -> parent, state, process group and start time of every descendant of this process,
    found through the kernel's child lists (cheap however busy the machine is)."""
    table: _Table = {}
    stack = [os.getpid()]
    while stack:
        for child in _children(stack.pop()):
            try:
                stat = Path(f"/proc/{child}/stat").read_bytes()
            except OSError:
                continue  # exited while we looked
            # "pid (command) state ppid pgrp ...": the command may hold spaces and parentheses.
            fields = stat[stat.rfind(b")") + 2 :].split()
            table[child] = _Entry(int(fields[1]), fields[0].decode(), int(fields[2]), int(fields[19]))
            stack.append(child)
    return table


def _children(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (a child belongs to the thread that forked it)."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found = []
    for thread in threads:
        try:
            listed = Path(f"/proc/{pid}/task/{thread}/children").read_text()
        except OSError:
            continue
        found += [int(word) for word in listed.split()]
    return found


def _below(pid: int, children: dict[int, list[int]]) -> Iterator[int]:
    """Every descendant of ``pid``, each before its own descendants."""
    stack = list(children.get(pid, ()))
    while stack:
        child = stack.pop()
        yield child
        stack.extend(children.get(child, ()))


def _first_started(pids: list[int], table: _Table) -> int | None:
    """The one of ``pids`` that started first."""
    return min(pids, key=lambda pid: table[pid].started, default=None)


@functools.cache
def _libc() -> ctypes.CDLL:
    """The C library, loaded before any fork: ``in_child`` runs where nothing may be loaded."""
    return ctypes.CDLL(None, use_errno=True)


def _signal_group(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass  # the group is already gone
