"""``neocode -p`` told by a 429 to wait longer than its usual retries: it says on stderr that
it waits for the reset, and Ctrl+C still ends it."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from tests.support.dialects import Dialect
from tests.support.headless import start
from tests.support.model_server import json_response
from tests.support.waits import PATIENCE


async def test_a_long_told_wait_is_said_on_stderr_and_ctrl_c_ends_it(openai_only: Dialect, workspace: Path) -> None:
    openai_only.server.enqueue(json_response(429, {"error": {"message": "tokens per minute"}},
                                             {"retry-after": "90"}))
    process = await start(openai_only, workspace, "-p", "go", NEOCODE_MAX_RETRIES="1")
    assert process.stderr is not None
    line = await asyncio.wait_for(process.stderr.readline(), PATIENCE)
    assert line.decode() == "rate limited: waiting 1:30 for the limit to reset (retry 2/2)\n"

    process.send_signal(signal.SIGINT)
    out, _ = await asyncio.wait_for(process.communicate(), PATIENCE)
    assert process.returncode == 130 and out == b""
    assert len(openai_only.server.requests) == 1


async def test_a_wait_past_rate_limit_max_wait_fails_at_once(openai_only: Dialect, workspace: Path) -> None:
    openai_only.server.enqueue(json_response(429, {"error": {"message": "quota"}}, {"retry-after": "90"}))
    process = await start(openai_only, workspace, "-p", "go", NEOCODE_MAX_RETRIES="1",
                          NEOCODE_RATE_LIMIT_MAX_WAIT="30")
    _, err = await asyncio.wait_for(process.communicate(), PATIENCE)
    assert process.returncode != 0
    assert "asks to wait 90 s, longer than the 30 s NeoCode waits (rate_limit_max_wait)" in err.decode()
