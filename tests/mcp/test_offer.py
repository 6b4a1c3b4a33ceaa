"""A server that lists far too many tools: each request offers a bounded, fair share chosen
the same way every time, the user is told what was left out, and a tool that only runs as
an MCP task is never offered. A real stdio server, a real session, the loopback model."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.agent.loop_events import Notice, ToolFinished
from neocode_tui.agent.mcp import status_text
from neocode_tui.agent.tools import MAX_TOOLS
from tests.support.dialects import Dialect
from tests.support.mcp_config import user_config
from tests.support.mcp_launch import TIME_SERVER, script_server
from tests.support.mcp_sessions import offered, open_session


async def test_a_server_with_5000_tools_gets_a_bounded_fair_share_and_the_user_is_told(
    openai_only: Dialect, workspace: Path
) -> None:
    user_config({"many": script_server("many_tools"), "time": TIME_SERVER})
    openai_only.reply("", [("s1", "mcp__many__slow_job", "{}"), ("p1", "mcp__many__ping", "{}")])
    openai_only.reply("Done.")
    session, recorder = await open_session(openai_only, workspace)  # asking would fail the test
    assert [s.state for s in session.mcp.status()] == ["connected", "connected"]

    await session.prompt("ping it")

    first, second = offered(openai_only, 1), offered(openai_only, 2)
    # The same choice each time; one place stays free for exit_plan_mode, offered in plan mode.
    assert len(first) == MAX_TOOLS - 1 and list(first) == list(second)
    sizes = [int(request.headers["content-length"]) for request in openai_only.server.requests]
    assert max(sizes) < 400_000  # the server's whole list is over 2 MB
    assert {"read_file", "bash", "mcp__time__get_current_time", "mcp__time__convert_time"} <= set(first)
    many = [name for name in first if name.startswith("mcp__many__")]
    assert many[:3] == ["mcp__many__ping", "mcp__many__wordy", "mcp__many__tool_0000"]
    # The server's numbered tools in their order, as many as the places the built-ins leave.
    assert len(many) > 100 and many[-1] == f"mcp__many__tool_{len(many) - 3:04d}"
    wordy = next(t["function"] for t in openai_only.request(1)["tools"]
                 if t["function"]["name"] == "mcp__many__wordy")
    assert len(wordy["description"]) < 2_100

    results = openai_only.tool_results(2)
    assert results["p1"] == "pong"
    assert results["s1"].startswith("not run: there is no tool named 'mcp__many__slow_job'")
    assert [e.status for e in recorder.of(ToolFinished)] == ["error", "ok"]
    told = [n.message for n in recorder.of(Notice) if "MCP server" in n.message]
    assert told == [
        f"MCP server 'many': {len(many)} of its 5,004 tools are offered to the model, "
        f"{5_002 - len(many):,} left out (a "
        "request offers at most 128 tools, built-in ones included, and 250,000 characters of MCP "
        "tool definitions) and 2 not usable (slow_job: it runs only as an MCP task, which NeoCode "
        "does not support; wide: its input schema is 39,724 characters, more than 20,000); "
        "/mcp lists them"
    ]

    shown = status_text(session.mcp.status(), [])
    lines = shown.splitlines()
    assert lines[0].startswith("many (user mcp.json): connected, 5,004 tools: ping, slow_job, wordy")
    assert lines[0].endswith(", … (4,964 more)")
    first_out = len(many) - 2
    assert lines[1].startswith("    not offered, over the limit of 128 tools and 250,000 characters "
                               f"in a request ({5_002 - len(many):,}): tool_{first_out:04d}, "
                               f"tool_{first_out + 1:04d}")
    assert lines[2:4] == [
        "    not offered, slow_job: it runs only as an MCP task, which NeoCode does not support",
        "    not offered, wide: its input schema is 39,724 characters, more than 20,000",
    ]
    assert lines[4].startswith("time (user mcp.json): connected, 2 tools")
    assert len(shown) < 5_000
    await session.aclose()
