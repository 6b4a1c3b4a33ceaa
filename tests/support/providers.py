"""What the provider tests point at the loopback model server with: a key, retries that back
off briefly and time limits a busy machine cannot strike (a test of a time limit sets its
own); and a stream cancelled as its first text arrives."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from neocode_tui.events import TextDelta
from neocode_tui.providers.http import HTTPOptions
from tests.support.waits import PATIENCE

API_KEY = "sk-test-SECRET-0123456789abcdef"
FAST = HTTPOptions(connect_timeout=PATIENCE, first_byte_timeout=PATIENCE, idle_timeout=PATIENCE, max_retries=0,
                   backoff_base=0.01, backoff_max=0.05)


async def cancelled_at_first_text(turn: Callable[[Callable[[Any], None]], Any]) -> bool:
    """Start ``turn`` (a collect given an event callback), cancel it once its first text
    delta arrives; whether it ended cancelled."""
    first_text = asyncio.Event()

    def seen(event: Any) -> None:
        if isinstance(event, TextDelta):
            first_text.set()

    task = asyncio.ensure_future(turn(seen))
    await first_text.wait()
    task.cancel()
    await asyncio.wait([task])
    return task.cancelled()
