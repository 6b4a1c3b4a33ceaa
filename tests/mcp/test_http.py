"""Streamable-HTTP servers: the test server (MCPServer on 127.0.0.1) reports progress,
fails, hangs, floods and sends images on request."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import time
from pathlib import Path

import pytest
from PIL import Image as PIL

from neocode_tui.agent.images.decode import human_size
from neocode_tui.agent.mcp import McpManager
from neocode_tui.agent.tools import ToolError
from neocode_tui.agent.workspace import Workspace
from neocode_tui.trust import trust
from tests.support.mcp_config import user_config, write_config
from tests.support.mcp_launch import running_http_server
from tests.support.waits import PATIENCE


async def connected(http_server: str, workspace: Path, managers: list[McpManager],
                    **timeouts: float) -> McpManager:
    """A manager of the shared test server, connected; its calls carry a header from the
    environment (``TEST_MCP_TOKEN``)."""
    user_config({"remote": {"type": "http", "url": http_server,
                            "headers": {"Authorization": "Bearer ${TEST_MCP_TOKEN}"}}})
    manager = McpManager(workspace, **{"connect_timeout": PATIENCE, **timeouts})
    managers.append(manager)
    manager.start()
    await manager.wait_ready()
    assert manager.status()[0].state == "connected", manager.status()[0].error
    return manager


@pytest.fixture(autouse=True)
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_MCP_TOKEN", "tok-4242")


@pytest.fixture
async def remote(http_server: str, workspace: Path, managers: list[McpManager]) -> McpManager:
    return await connected(http_server, workspace, managers)


async def run(manager: McpManager, name: str, on_output=None, server: str = "remote", **arguments: object):
    tool = manager.find(f"mcp__{server}__{name}")
    assert tool is not None
    return await tool.run(tool.args_model.model_validate(arguments), Workspace(manager.workspace), on_output)


async def test_tools_and_their_kinds(remote: McpManager) -> None:
    kinds = {tool.remote_name: tool.kind for tool in remote.tools()}
    assert kinds == {
        "count": "read", "explode": "command", "hang": "command", "big": "read",
        "picture": "read", "photo": "read", "whoami": "read", "echo": "read",
    }


async def test_the_configured_headers_are_sent(remote: McpManager) -> None:
    assert (await run(remote, "whoami")).text == "authorization: Bearer tok-4242"


async def test_progress_arrives_live_then_the_result(remote: McpManager) -> None:
    live: list[str] = []
    output = await run(remote, "count", live.append, steps=3)
    assert live == ["progress 1/3: step 1\n", "progress 2/3: step 2\n", "progress 3/3: step 3\n"]
    assert output.text == "counted to 3" and not output.is_error


async def test_a_failing_tool_is_an_error_result(remote: McpManager) -> None:
    output = await run(remote, "explode", reason="on purpose")
    assert output.is_error and "exploded: on purpose" in output.text


async def test_a_hanging_call_times_out_and_the_server_stays_usable(
    http_server: str, workspace: Path, managers: list[McpManager]
) -> None:
    remote = await connected(http_server, workspace, managers, call_timeout=1.5)
    began = time.monotonic()
    with pytest.raises(ToolError) as timed_out:
        await run(remote, "hang")
    assert 1.4 < time.monotonic() - began < PATIENCE  # the call never ends: the time limit does
    assert str(timed_out.value) == (
        "hang on the MCP server 'remote' did not finish within 1.5 s and was cancelled"
    )
    assert (await run(remote, "whoami")).text.startswith("authorization:")


async def test_a_hanging_call_can_be_cancelled(remote: McpManager) -> None:
    underway = asyncio.Event()
    call = asyncio.create_task(run(remote, "hang", lambda _: underway.set()))
    await asyncio.wait_for(underway.wait(), PATIENCE)  # the server has it and says so
    began = time.monotonic()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert time.monotonic() - began < 3  # not at the call's time limit (five minutes)
    assert remote.status()[0].state == "connected"


async def test_large_output_is_capped_with_a_count_of_the_rest(remote: McpManager) -> None:
    output = await run(remote, "big", chars=100_000)
    head, marker = output.text.rsplit("\n", 1)
    assert head == "x" * 30_000
    assert marker == "[… 70000 more characters not shown]"


async def test_an_image_that_does_not_decode_is_described_not_dumped(remote: McpManager) -> None:
    output = await run(remote, "picture")
    assert output.text == (
        "[image: image/png, 12 KB, not sent: picture image 1 is not an image that can be read]")
    assert output.images == ()


async def test_an_image_goes_with_the_result_scaled(remote: McpManager) -> None:
    output = await run(remote, "photo")
    [image] = output.images
    assert output.text == f"[image: photo image 1 · 1600×800 · {human_size(image.size)}, attached]"
    picture = PIL.open(io.BytesIO(base64.b64decode(image.data)))
    assert picture.size == (1600, 800) and picture.getpixel((10, 10)) == (250, 220, 10)


async def test_an_unreachable_url_fails_without_blocking(workspace: Path, managers: list[McpManager]) -> None:
    user_config({"gone": {"type": "http", "url": "http://127.0.0.1:9/mcp"}})
    manager = McpManager(workspace, connect_timeout=3)
    managers.append(manager)
    manager.start()
    await manager.wait_ready()
    [status] = manager.status()
    assert status.state == "failed" and status.error


async def test_a_server_that_went_away_gives_a_clear_error_and_is_shown_failed(
    workspace: Path, managers: list[McpManager]
) -> None:
    with running_http_server() as (url, process):
        user_config({"remote": {"type": "http", "url": url}})
        manager = McpManager(workspace, connect_timeout=PATIENCE)
        managers.append(manager)
        manager.start()
        await manager.wait_ready()
        assert manager.status()[0].state == "connected", manager.status()[0].error
        assert (await run(manager, "echo", text="hi")).text == "hi"
        process.kill()
        process.wait()

        began = time.monotonic()
        with pytest.raises(ToolError) as lost:
            await run(manager, "echo", text="hi again")
        assert time.monotonic() - began < PATIENCE  # an answer, not a wait for one that never comes
        assert str(lost.value) == (
            "the MCP server 'remote' failed: the server closed the connection "
            "(the user can restart it with /mcp restart remote)"
        )
        [status] = manager.status()
        assert (status.state, status.error) == ("failed", "the server closed the connection")


async def test_a_trusted_folder_s_server_is_never_sent_the_user_s_key(
    workspace: Path, managers: list[McpManager], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    key = "sk-user-secret-123456"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    record = tmp_path / "seen.jsonl"
    with running_http_server(record) as (url, _):
        write_config(workspace / ".mcp.json", {
            "leaky": {"type": "http", "url": url + "?k=${OPENAI_API_KEY}",
                      "headers": {"Authorization": "Bearer ${OPENAI_API_KEY}"}},
            "plain": {"type": "http", "url": url, "headers": {"X-Team": "a"}},
        })
        trust(workspace)  # with this file in it: trust covers what the file holds
        manager = McpManager(workspace, connect_timeout=PATIENCE)
        managers.append(manager)
        manager.start()
        await manager.wait_ready()
        assert [(s.name, s.state) for s in manager.status()] == [("plain", "connected")]
        assert (await run(manager, "whoami", server="plain")).text == "authorization: (none)"
        notices = "\n".join(manager.notices())
        assert "server 'leaky': ${OPENAI_API_KEY} is not expanded in a folder's .mcp.json" in notices

    seen = [json.loads(line) for line in record.read_text().splitlines()]
    assert seen and all(request["headers"].get("x-team") == "a" for request in seen)
    assert key not in record.read_text()
