"""The app's side of MCP: servers start with it, /mcp shows them and restarts one."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE, Driver, Release, StepProvider, Type
from tests.support.mcp_config import user_config
from tests.support.mcp_launch import TIME_SERVER, script_server
from tests.support.reading import screen_text
from tests.support.waits import screen_shows, started, wait_until


def app_in(workspace: Path) -> NeoCodeApp:
    provider = StepProvider(ScriptedProvider(lambda request: scripted_reply("ok")))
    return NeoCodeApp(Settings(provider="scripted"), provider, workspace, remember_theme=False)


async def test_servers_start_with_the_app_and_mcp_lists_and_restarts_them(workspace: Path) -> None:
    user_config({"time": TIME_SERVER})
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": {"command": "x"}}}))
    app = app_in(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await screen_shows(app, pilot, "not started, this folder is not trusted: repo")
        mcp = app.session.mcp
        await wait_until(lambda: mcp.status()[0].state == "connected", pause=pilot.pause,
                         what="the time server")

        driver = Driver(pilot)
        await driver.play([Type("/mcp")])
        await screen_shows(app, pilot, "time (user mcp.json): connected, 2 tools: get_current_time",
                           "repo (workspace .mcp.json): not started: folder not trusted")

        await driver.play([Type("hi"), Release()])
        offered = [tool.name for tool in app.provider.inner.requests[-1].tools]
        assert "mcp__time__get_current_time" in offered and "bash" in offered

        await driver.play([Type("/mcp restart time")])
        await wait_until(lambda: screen_text(app).count("time (user mcp.json): connected") == 2,
                         pause=pilot.pause, what="the restarted server")
        assert "restarting MCP server time…" in screen_text(app)

        await driver.play([Type("/mcp restart nope"), Type("/mcp frob")])
        await screen_shows(app, pilot, "no MCP server named 'nope' (servers: time)",
                           "usage: /mcp, /mcp restart NAME, /mcp login NAME, /mcp logout NAME")
    assert mcp.status()[0].state == "stopped"  # closing the app stops its servers


async def test_a_broken_config_is_a_warning_at_start(workspace: Path) -> None:
    path = user_config({})
    path.write_text('{"mcpServers": {"a": {"command": 1}}}')
    app = app_in(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await screen_shows(app, pilot, "MCP config:", "server 'a': command: Input should be a valid string")


async def test_the_app_says_which_server_s_tools_were_left_out_and_mcp_lists_them(workspace: Path) -> None:
    user_config({"many": script_server("many_tools", "300")})
    app = app_in(workspace)
    async with app.run_test(size=(SIZE[0], 50)) as pilot:
        mcp = app.session.mcp
        await wait_until(lambda: mcp.status()[0].state == "connected", pause=pilot.pause)
        driver = Driver(pilot)
        await driver.play([Type("hi"), Release()])
        sent = app.provider.inner.requests[-1].tools
        assert len(sent) == 127  # exit_plan_mode: plan mode only
        many = sum(tool.name.startswith("mcp__many__") for tool in sent)
        notice = f"MCP server 'many': {many} of its 304 tools are offered"
        await wait_until(lambda: notice in screen_text(app),
                         pause=pilot.pause, what="the notice")

        await driver.play([Type("/mcp")])
        await wait_until(lambda: "not offered, slow_job: it runs only as an MCP task" in screen_text(app),
                         pause=pilot.pause, what="/mcp")
        assert "not offered, over the limit of 128 tools" in screen_text(app)
