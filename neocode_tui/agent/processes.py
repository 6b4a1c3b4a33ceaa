"""Ending every process a command started, wherever it went.

Killing the command's process group misses a child that called ``setsid`` (or ``setpgid``),
and once the shell has exited such a child is re-parented to init, out of reach. So on
Linux this process becomes a child subreaper: orphans of its commands are re-parented to it
instead and stay in its process tree. Each command is started with a marker in its
environment, which its descendants inherit; a command's processes are this process's
descendants that carry its marker, and everything below them (a child that cleared its
environment is still found through its parent). Killing repeats until none is left alive,
so a process forking while it is killed does not escape, and the dead are reaped.

A parent dies before its children: the shell's group at once, then the rest from the top of
the tree down. A shell that saw its foreground child killed first would go on to the next
command of its line (``sleep 30; rm -rf build``) in the moment before its own kill.

Elsewhere (no subreaper, no ``/proc`` child lists) only the process group is killed.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import secrets
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

MARKER = "NEOCODE_COMMAND"
"""The environment variable that tags a command's processes."""
KILL_WAIT = 2.0
"""Seconds to keep killing and reaping before giving up on a process that will not die."""
PR_SET_CHILD_SUBREAPER = 36
LINUX = sys.platform.startswith("linux")

_live: set[ProcessTree] = set()
_subreaper = False


class ProcessTree:
    """The processes of one command: give it ``environment`` when starting the command,
    call ``started`` with the command's pid, and ``kill`` to end all of them.

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
        """SIGKILL every process of the command, the shell too, and wait (briefly) until
        they are gone. Safe to call more than once, and when all have already exited."""
        if not _subreaper:
            if self.root is not None:
                _kill_group(self.root)
            _live.discard(self)
            return
        deadline = time.monotonic() + KILL_WAIT
        killed: set[int] = set()
        while True:
            table = _process_table()
            members = self._members(table)
            if self.root is None:  # still starting: the shell is the first of them we started
                self.root = _first_started([pid for pid in members if table[pid][0] == os.getpid()])
            alive = [pid for pid in members if table[pid][1] != "Z"]
            self._reap(table, killed)
            if not alive or time.monotonic() > deadline:
                break
            if self.root in table:  # not reaped yet, so its group's id is still its own
                _kill_group(self.root)
            for pid in alive:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            killed.update(alive)
            time.sleep(0.005)
        while self._reap(_process_table(), killed) and time.monotonic() < deadline:
            time.sleep(0.005)
        _live.discard(self)

    def _members(self, table: dict[int, tuple[int, str, int]]) -> list[int]:
        """The command's processes, each parent before its children."""
        children: dict[int, list[int]] = {}
        for pid, (parent, _, _) in table.items():
            children.setdefault(parent, []).append(pid)
        members: dict[int, None] = {}  # ordered: the walk's order, from the top down
        for pid in _below(os.getpid(), children):
            if pid not in members and self._marked(pid):
                members[pid] = None
                members.update(dict.fromkeys(_below(pid, children)))
        return list(members)

    def _marked(self, pid: int) -> bool:
        try:
            return self._entry in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:  # gone, or not ours to read
            return False

    def _reap(self, table: dict[int, tuple[int, str, int]], killed: set[int]) -> bool:
        """Collect our dead children from this command (not the shell: asyncio waits for
        it). True while a process it killed is still in the table: dying, or dead under a
        parent that is dying and will pass it on to us."""
        me = os.getpid()
        for pid, (parent, state, group) in table.items():
            ours = pid in killed or group == self.root
            if state == "Z" and parent == me and pid != self.root and ours:
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
        return any(pid in table for pid in killed if pid != self.root)


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants (Linux; once, idempotent).
    Also ends every command still running when the interpreter exits."""
    global _subreaper
    if not _subreaper and LINUX and Path(f"/proc/self/task/{os.getpid()}/children").exists():
        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        if _subreaper:
            atexit.register(kill_all)
    return _subreaper


def kill_all() -> None:
    """End every command still running, whole trees. For a front end that must exit now
    (SIGTERM, SIGHUP) and cannot wait for its runs to be cancelled."""
    for tree in list(_live):
        tree.kill()


def _process_table() -> dict[int, tuple[int, str, int]]:
    """pid -> (parent pid, state, process group) of every descendant of this process,
    found through the kernel's child lists (cheap however busy the machine is)."""
    table: dict[int, tuple[int, str, int]] = {}
    stack = [os.getpid()]
    while stack:
        for child in _children(stack.pop()):
            try:
                stat = Path(f"/proc/{child}/stat").read_bytes()
            except OSError:
                continue  # exited while we looked
            # "pid (command) state ppid pgrp ...": the command may hold spaces and parentheses.
            fields = stat[stat.rfind(b")") + 2 :].split()
            table[child] = (int(fields[1]), fields[0].decode(), int(fields[2]))
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


def _first_started(pids: list[int]) -> int | None:
    """The one of ``pids`` that started first (by its start time since boot)."""
    started: dict[int, int] = {}
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_bytes()
        except OSError:
            continue
        started[pid] = int(stat[stat.rfind(b")") + 2 :].split()[19])  # field 22, starttime
    return min(started, key=started.__getitem__, default=None)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is already gone
