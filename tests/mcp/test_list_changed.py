"""A server whose lists change while it runs (tests/support/mcp_servers/changing.py), on both protocol
eras: handshake-era notifications, which come before the call's result, so the tool it adds is
offered in the model's very next request; and 2026-07-28 ``subscriptions/listen`` events, on a
stream of their own, taken in as they arrive. The prompt it adds reaches the completion."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE, Driver, Release, StepProvider, Type
from tests.support.dialects import Dialect
from tests.support.headless import neocode
from tests.support.mcp_config import user_config
from tests.support.mcp_launch import script_server
from tests.support.waits import screen_shows, started, wait_until

ERAS = pytest.mark.parametrize("era", [(), ("legacy",)], ids=["2026-07-28", "handshake"])


def offered(dialect: Dialect, number: int) -> list[str]:
    return [tool["function"]["name"] for tool in dialect.request(number)["tools"]]


async def test_the_tool_a_call_adds_is_offered_in_the_next_request(openai_only: Dialect, workspace: Path) -> None:
    user_config({"changing": script_server("changing", "legacy")})
    openai_only.reply("", [("g1", "mcp__changing__grow", "{}")])
    openai_only.reply("", [("g2", "mcp__changing__grown", "{}")])
    openai_only.reply("Done.")
    result = await neocode(openai_only, workspace, "-p", "grow", "--approval", "full-auto")
    assert (result.code, result.out) == (0, "Done.\n"), result.err
    assert "mcp__changing__grown" not in offered(openai_only, 1)
    assert "mcp__changing__grown" in offered(openai_only, 2)
    assert openai_only.tool_results(3)["g2"] == "grown and answering"


@ERAS
async def test_the_prompt_a_call_adds_is_completed_in_the_app(workspace: Path, era: tuple[str, ...]) -> None:
    user_config({"changing": script_server("changing", *era)})
    calls = iter([[("mcp__changing__grow", "{}")], []])
    provider = StepProvider(ScriptedProvider(lambda request: scripted_reply("", next(calls, []))))
    app = NeoCodeApp(Settings(provider="scripted", approval="full-auto"), provider, workspace,
                     remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        names = lambda: [prompt.name for prompt in app.session.mcp.prompts()]  # noqa: E731
        await wait_until(lambda: names() == ["mcp__changing__steady"], pause=pilot.pause, what="the server")
        driver = Driver(pilot)
        await driver.play([Type("grow"), Release()])
        await wait_until(lambda: "mcp__changing__fresh" in names(), pause=pilot.pause, what="the new prompt")
        assert "mcp__changing__grown" in [tool.name for tool in app.session.mcp.tools()]
        await driver.play([Type("/mcp__changing__f")])
        await screen_shows(app, pilot, "/mcp__changing__fresh")
