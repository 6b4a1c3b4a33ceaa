"""MCP servers the editor gives with ``session/new``: started for that session, tools offered."""

from __future__ import annotations

import asyncio
import base64
import io
import sys
from pathlib import Path

from acp import text_block
from acp.schema import (
    AvailableCommandsUpdate,
    EnvVariable,
    HttpHeader,
    HttpMcpServer,
    ImageContentBlock,
    McpServerStdio,
    SseMcpServer,
)
from PIL import Image as PIL

from tests.support.acp_editor import agent_env, editor
from tests.support.dialects import Dialect
from tests.support.images import sent_images
from tests.support.mcp_launch import SCRIPTS, running_http_server
from tests.support.waits import PATIENCE

TIME_SERVER = str(Path(sys.executable).parent / "mcp-server-time")
CHANGING = SCRIPTS / "changing.py"


async def test_the_editors_stdio_server_is_started_and_its_tools_offered_from_the_first_prompt(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("", [("t1", "mcp__clock__get_current_time", '{"timezone": "UTC"}')])
    model.reply("It is now.")
    servers = [McpServerStdio(name="clock", command=TIME_SERVER, args=["--local-timezone", "UTC"],
                              env=[EnvVariable(name="TZ", value="UTC")])]

    async with editor(agent_env(model.server.url, home), workspace) as ed:
        ed.client.answers.append("allow")
        init = next(m["result"] for m in ed.traffic if m.get("id") == 0 and "result" in m)
        assert init["agentCapabilities"]["mcpCapabilities"] == {"http": True, "sse": False}
        session = await ed.conn.new_session(cwd=str(workspace), mcp_servers=servers)
        reply = await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("what time is it?")]), 60
        )

    assert reply.stop_reason == "end_turn"
    offered = [tool["function"]["name"] for tool in model.request(1)["tools"]]
    assert "mcp__clock__get_current_time" in offered
    assert '"timezone": "UTC"' in model.tool_results(2)["t1"]
    assert ed.client.text() == "It is now."


async def test_servers_it_cannot_use_are_named_in_the_log_and_the_session_goes_on(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("Hello.")
    servers = [
        SseMcpServer(type="sse", name="old", url="http://127.0.0.1:9/sse", headers=[]),
        HttpMcpServer(type="http", name="odd", url="ftp://127.0.0.1/mcp",
                      headers=[HttpHeader(name="Authorization", value="Bearer x")]),
    ]

    async with editor(agent_env(model.server.url, home), workspace) as ed:
        session = await ed.conn.new_session(cwd=str(workspace), mcp_servers=servers)
        reply = await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("hi")]), 30
        )

    assert reply.stop_reason == "end_turn"
    assert ed.client.text() == "Hello."
    log = ed.stderr.read_text()
    assert "server 'old': the sse transport is not supported (stdio and http are)" in log
    assert "server 'odd': url: Value error, must start with http:// or https://" in log
    assert "Bearer x" not in log


async def test_a_prompt_the_server_adds_while_it_runs_reaches_the_editors_command_list(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("", [("g1", "mcp__changing__grow", "{}")])
    model.reply("Grown.")
    changing = McpServerStdio(name="changing", command=sys.executable, args=[str(CHANGING)], env=[])

    def listed() -> list[list[str]]:
        return [[command.name for command in update.available_commands]
                for update in ed.client.updates if isinstance(update, AvailableCommandsUpdate)]

    async with editor(agent_env(model.server.url, home), workspace) as ed:
        ed.client.answers.append("allow")
        session = await ed.conn.new_session(cwd=str(workspace), mcp_servers=[changing])
        await ed.client.wait_for(lambda: any("mcp__changing__steady" in names for names in listed()))
        before = listed()[-1]
        reply = await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("grow")]), PATIENCE)
        await ed.client.wait_for(lambda: "mcp__changing__fresh" in listed()[-1])

    assert reply.stop_reason == "end_turn"
    assert "mcp__changing__fresh" not in before


async def test_an_mcp_tools_picture_reaches_the_editor_as_an_image_and_the_model_as_one(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("", [("p1", "mcp__remote__photo", "{}")])
    model.reply("Yellow and blue.")
    with running_http_server() as (url, _):
        servers = [HttpMcpServer(type="http", name="remote", url=url, headers=[])]
        async with editor(agent_env(model.server.url, home), workspace) as ed:
            ed.client.answers.append("allow")
            session = await ed.conn.new_session(cwd=str(workspace), mcp_servers=servers)
            await asyncio.wait_for(
                ed.conn.prompt(session_id=session.session_id, prompt=[text_block("the photo?")]), 60)

    [done] = [u for u in ed.client.call_updates("p1") if u.status == "completed"]
    [shown] = [c.content for c in done.content if isinstance(c.content, ImageContentBlock)]
    picture = PIL.open(io.BytesIO(base64.b64decode(shown.data)))
    assert (shown.mime_type, picture.size) == ("image/png", (1600, 800))
    [(media_type, sent, _)] = sent_images(model, 2)
    assert media_type == "image/png" and sent.size == (1600, 800)
    assert ed.client.text() == "Yellow and blue."
