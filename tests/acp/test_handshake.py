"""``initialize`` answered before the ACP SDK is imported: the same answer, to the byte, as
the SDK gives; and every first message it does not check still answered by the SDK."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION

from tests.support.acp_editor import agent_env
from tests.support.acp_raw import RawAgent, start_raw
from tests.support.dialects import Dialect
from tests.support.waits import PATIENCE

ZED = {"protocolVersion": 1, "clientInfo": {"name": "zed", "title": "Zed", "version": "0.200"},
       "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True,
                              "auth": {"terminal": True}, "_meta": {"terminal_output": True}}}
"""What an editor sends: every field the handshake answers itself."""


async def first_answer(model: Dialect, workspace: Path, home: Path, params: dict[str, Any]) -> bytes:
    """The line ``neocode acp`` writes back to a first ``initialize`` with ``params``."""
    agent = RawAgent(await start_raw(agent_env(model.server.url, home), workspace))
    await agent.request("initialize", params)
    assert agent.process.stdin is not None
    agent.process.stdin.close()
    await asyncio.wait_for(agent.process.wait(), PATIENCE)
    return agent.lines[0]


async def test_an_editors_initialize_gets_the_answer_the_sdk_gives(
    model: Dialect, workspace: Path, home: Path
) -> None:
    early = await first_answer(model, workspace, home, ZED)
    # A field the handshake does not check: the SDK reads and answers this one.
    by_sdk = await first_answer(model, workspace, home, {**ZED, "_meta": {"trace": "1"}})
    assert early == by_sdk
    answer = json.loads(early)["result"]
    assert answer["agentInfo"]["name"] == "neocode"
    assert answer["agentCapabilities"]["loadSession"] is True


async def test_a_newer_client_is_answered_with_the_sdks_version(
    model: Dialect, workspace: Path, home: Path
) -> None:
    answer = json.loads(await first_answer(model, workspace, home, {"protocolVersion": 9}))
    assert answer["result"]["protocolVersion"] == PROTOCOL_VERSION


async def test_an_initialize_the_sdk_would_refuse_or_coerce_is_left_to_it(
    model: Dialect, workspace: Path, home: Path
) -> None:
    too_new = json.loads(await first_answer(model, workspace, home, {"protocolVersion": 70_000}))
    assert too_new["error"]["code"] == -32602
    assert too_new["error"]["data"]["errors"][0]["loc"] == ["protocolVersion"]
    dated = json.loads(await first_answer(model, workspace, home, {"protocolVersion": "2024-11-05"}))
    assert dated["result"]["protocolVersion"] == 1  # the SDK's reading of a date
    bad_fs = {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": "yes"}}}
    salvaged = json.loads(await first_answer(model, workspace, home, bad_fs))
    assert salvaged["result"]["agentInfo"]["name"] == "neocode"
