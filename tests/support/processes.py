"""The processes a test starts through the agent (commands, hooks): finding them, telling
whether they still run, and holding one until the test lets it go on."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.support.waits import PATIENCE

TIME_LIMIT = 10
"""The time limit (whole seconds) of a command or hook whose time limit is under test: what
the command starts must have started before it strikes, also on a machine with every core
busy; the command itself never finishes, so the limit is always what ends it."""


def process_alive(pid: int) -> bool:
    """True while ``pid`` runs; a zombie (killed, not yet reaped) counts as dead."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def sleepers(token: str) -> list[int]:
    """Host pids of live processes with ``token`` as a word of their command line (a
    ``sleep`` of an unlikely number of seconds is easy to find, even inside a sandbox)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if token.encode() in cmdline.split(b"\0") and state != "Z":
                found.append(int(entry.name))
    return found


async def wait_dead(pid: int, within: float = PATIENCE) -> bool:
    for _ in range(int(within / 0.05)):
        if not process_alive(pid):
            return True
        await asyncio.sleep(0.05)
    return False


def waiting_for(name: str) -> str:
    """Shell that waits until the test creates ``name`` in the workspace: the command goes
    on exactly when the test says, whatever the machine's load."""
    return f"until [ -e {name} ]; do sleep 0.02; done"
