"""End to end: an agent session whose model (the loopback test server) calls MCP tools."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from neocode_tui.agent.loop_events import (
    ApprovalDecision,
    ApprovalRequested,
    ToolFinished,
    ToolOutputDelta,
    ToolStarted,
)
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.settings.model import Settings
from neocode_tui.trust import trust
from tests.support.dialects import API_KEY, Dialect
from tests.support.mcp_config import user_config, write_config
from tests.support.mcp_launch import TIME_SERVER, VENV_BIN
from tests.support.mcp_sessions import offered, open_session
from tests.support.recorder import Recorder
from tests.support.transcripts import assert_transcript_valid
from tests.support.waits import PATIENCE, wait_until


async def test_the_model_calls_a_stdio_server_s_tool_and_reads_its_result(
    dialect: Dialect, workspace: Path
) -> None:
    user_config({"time": TIME_SERVER})
    dialect.reply("", [("t1", "mcp__time__get_current_time", '{"timezone": "Europe/Paris"}')])
    dialect.reply("It is evening in Paris.")
    session, recorder = await open_session(dialect, workspace)  # "ask": read-only runs unasked

    finished = await session.prompt("what time is it in Paris?")

    assert finished.reason == "done" and finished.final_text == "It is evening in Paris."
    tools = offered(dialect, 1)
    assert "read_file" in tools and "bash" in tools
    assert tools["mcp__time__get_current_time"]["required"] == ["timezone"]
    result = json.loads(dialect.tool_results(2)["t1"])
    assert result["timezone"] == "Europe/Paris"
    [started] = recorder.of(ToolStarted)
    assert started.arguments == {"timezone": "Europe/Paris"}
    [done] = recorder.of(ToolFinished)
    assert (done.name, done.status) == ("mcp__time__get_current_time", "ok")
    assert_transcript_valid(session.loop)
    await session.aclose()
    assert session.mcp.status()[0].state == "stopped"


async def test_a_tool_not_marked_read_only_asks_first(
    openai_only: Dialect, workspace: Path, http_server: str
) -> None:
    user_config({"remote": {"type": "http", "url": http_server}})
    openai_only.reply("", [("e1", "mcp__remote__explode", '{"reason": "why not"}')])
    openai_only.reply("Fine, I will not.")
    asked: list[ApprovalRequested] = []

    async def refuse(request: ApprovalRequested) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision(verdict="no", reason="not today")

    session, recorder = await open_session(openai_only, workspace, approver=refuse)
    await session.prompt("blow it up")

    [request] = asked
    assert (request.name, request.summary) == (
        "mcp__remote__explode", 'remote · explode {"reason": "why not"}'
    )
    assert openai_only.tool_results(2)["e1"] == "the user denied this call: not today"
    assert recorder.of(ToolStarted) == []
    await session.aclose()


async def test_a_failing_call_is_an_error_result_and_progress_reaches_the_live_panel(
    openai_only: Dialect, workspace: Path, http_server: str
) -> None:
    user_config({"remote": {"type": "http", "url": http_server}})
    openai_only.reply("", [
        ("c1", "mcp__remote__count", '{"steps": 2}'),
        ("e1", "mcp__remote__explode", '{"reason": "bad day"}'),
    ])
    openai_only.reply("One worked.")
    session, recorder = await open_session(openai_only, workspace, approval="full-auto")

    await session.prompt("count, then explode")

    live = [delta.text for delta in recorder.of(ToolOutputDelta) if delta.call_id == "c1"]
    assert live == ["progress 1/2: step 1\n", "progress 2/2: step 2\n"]
    finished = {event.call_id: event for event in recorder.of(ToolFinished)}
    assert (finished["c1"].status, finished["c1"].result) == ("ok", "counted to 2")
    assert finished["e1"].is_error and "exploded: bad day" in finished["e1"].result
    assert openai_only.tool_results(2)["e1"] == finished["e1"].result
    await session.aclose()


async def test_esc_stops_a_hanging_call_and_the_server_stays_usable(
    openai_only: Dialect, workspace: Path, http_server: str
) -> None:
    user_config({"remote": {"type": "http", "url": http_server}})
    openai_only.reply("", [("h1", "mcp__remote__hang", "{}")])
    openai_only.reply("", [("w1", "mcp__remote__echo", '{"text": "still here"}')])
    openai_only.reply("Done.")
    session, recorder = await open_session(openai_only, workspace, approval="full-auto")

    task = asyncio.create_task(session.prompt("hang"))
    await wait_until(lambda: recorder.of(ToolStarted) != [], what="the call to start")
    assert session.cancel()
    finished = await asyncio.wait_for(task, PATIENCE)

    assert finished.reason == "cancelled"
    assert_transcript_valid(session.loop)
    assert session.mcp.status()[0].state == "connected"
    again = await session.prompt("echo")
    assert again.reason == "done"
    assert openai_only.tool_results(3)["w1"] == "still here"
    await session.aclose()


async def test_a_result_carrying_the_api_key_is_scrubbed(
    openai_only: Dialect, workspace: Path, http_server: str
) -> None:
    user_config({"remote": {"type": "http", "url": http_server}})
    call = json.dumps({"text": f"OPENAI_API_KEY={API_KEY}"})
    openai_only.reply("", [("k1", "mcp__remote__echo", call)])
    openai_only.reply("ok")
    session, recorder = await open_session(openai_only, workspace)

    await session.prompt("echo the key")

    assert openai_only.tool_results(2)["k1"] == "OPENAI_API_KEY=[redacted]"
    assert API_KEY not in recorder.of(ToolFinished)[0].result
    await session.aclose()


@pytest.mark.parametrize("where", ["user", "workspace"])
async def test_an_mcp_header_token_never_reaches_the_model_the_screen_or_the_file(
    openai_only: Dialect, workspace: Path, http_server: str, isolated_user: Path, where: str
) -> None:
    """The server echoes the Authorization header it got: the token is the configured
    one, in the user's mcp.json or a trusted folder's .mcp.json, and is scrubbed."""
    token = "mcp-bearer-Zq8Wx3Lp9Tk2Hv"
    server = {"remote": {"type": "http", "url": http_server, "headers": {"Authorization": f"Bearer {token}"}}}
    if where == "user":
        user_config(server)
    else:
        write_config(workspace / ".mcp.json", server)
        trust(workspace)
    openai_only.reply("", [("w1", "mcp__remote__whoami", "{}")])
    openai_only.reply("ok")
    session, recorder = await open_session(openai_only, workspace)

    await session.prompt("who am I to the server?")
    await session.aclose()

    assert openai_only.tool_results(2)["w1"] == "authorization: Bearer [redacted]"
    saved = "".join(path.read_text() for path in (isolated_user / "data").rglob("*.jsonl"))
    shown = json.dumps([event.model_dump(mode="json") for event in recorder.events])
    sent = json.dumps([request.json for request in openai_only.server.requests])
    assert "Bearer [redacted]" in saved and "Bearer [redacted]" in shown
    assert all(token[at : at + 8] not in saved + shown + sent for at in range(len(token) - 7))


async def test_an_untrusted_workspace_s_server_is_never_spawned(
    openai_only: Dialect, workspace: Path
) -> None:
    marker = workspace / "server-ran"
    write_config(workspace / ".mcp.json", {"repo": {
        "command": "sh", "args": ["-c", f"touch {marker}; exec {VENV_BIN / 'mcp-server-time'}"],
    }})
    user_config({"time": TIME_SERVER})  # the user's own server does start, in the same session
    openai_only.reply("Hello.")
    session, _ = await open_session(openai_only, workspace)

    await session.prompt("hi")

    states = {status.name: (status.state, status.error) for status in session.mcp.status()}
    assert states == {"time": ("connected", ""), "repo": ("not started", "folder not trusted")}
    assert not any(name.startswith("mcp__repo__") for name in offered(openai_only, 1))
    assert "mcp__time__get_current_time" in offered(openai_only, 1)
    await session.aclose()
    assert not marker.exists()


async def test_the_first_prompt_starts_the_servers_without_waiting_for_them(
    openai_only: Dialect, workspace: Path
) -> None:
    user_config({"silent": {"command": "sleep", "args": ["60"]}})
    openai_only.reply("Hello.")
    recorder = Recorder()
    session = AgentSession(Settings(provider="openai"), workspace, FrontEnd(listener=recorder),
                           provider=openai_only.provider())

    finished = await asyncio.wait_for(session.prompt("hi"), PATIENCE)  # not the connect timeout (10 s)

    assert finished.reason == "done"
    assert session.mcp.status()[0].state == "connecting"
    await asyncio.wait_for(session.aclose(), PATIENCE)
    assert session.mcp.status()[0].state == "stopped"


def test_a_session_without_servers_does_not_load_the_sdk(workspace: Path) -> None:
    """The SDK takes most of a second to import: a run without MCP servers never pays it."""
    check = (
        "import sys; from pathlib import Path; from neocode_tui.agent.session.agent_session import AgentSession; "
        "from neocode_tui.settings.model import Settings; "
        f"AgentSession(Settings(provider='openai', openai_api_key='sk-x'), Path({str(workspace)!r})); "
        "print('mcp' in sys.modules, 'mcp_types' in sys.modules)"
    )
    ran = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    assert ran.stdout.split() == ["False", "False"]
