"""Small helpers the agent tests share."""

from __future__ import annotations

import asyncio
from pathlib import Path


def process_alive(pid: int) -> bool:
    """True while ``pid`` runs; a zombie (killed, not yet reaped) counts as dead."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def wait_dead(pid: int, within: float = 3.0) -> bool:
    for _ in range(int(within / 0.05)):
        if not process_alive(pid):
            return True
        await asyncio.sleep(0.05)
    return False


async def wait_for_file(path: Path, within: float = 5.0) -> str:
    for _ in range(int(within / 0.02)):
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")
