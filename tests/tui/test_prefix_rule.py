"""The approval dialog's "always allow commands starting with ``npm test``": the real app
over real HTTP, the rule saved where the user picked, and the next session (a real
``neocode -p``) runs the command without asking while a smuggled one still asks."""

from __future__ import annotations

import json
import os
from pathlib import Path

from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from neocode_tui.tui.screens.approval import ApprovalScreen
from tests.support.calls import bash
from tests.support.dialects import Dialect
from tests.support.headless import run
from tests.support.model_server import ModelServer
from tests.support.programs import fake_npm
from tests.support.waits import screen_shows, wait_until


def app_on(model_server: ModelServer, workspace: Path) -> NeoCodeApp:
    settings = Settings(provider="openai", base_url=f"{model_server.url}/v1", model="m",
                        openai_api_key="sk-test-prefix", max_retries=0)
    return NeoCodeApp(settings, None, workspace, remember_theme=False)


async def answer_with(app: NeoCodeApp, pilot, *keys: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*"run the tests", "enter")
    await wait_until(lambda: isinstance(app.screen, ApprovalScreen), pause=pilot.pause, what="the question")
    await screen_shows(app, pilot, "p always allow commands starting with npm test")
    await pilot.press("p")
    await screen_shows(app, pilot, "Always allow commands starting with npm test: u save in your config")
    await pilot.press(*keys)
    await wait_until(lambda: not app.working, pause=pilot.pause, what="the run to end")


async def test_the_rule_saved_in_the_user_config_holds_in_the_next_session(
    openai_only: Dialect, workspace: Path, monkeypatch
) -> None:
    env = fake_npm(workspace)
    monkeypatch.setenv("PATH", env["PATH"])
    openai_only.reply("", [bash("t1", "npm test -- --ci")])
    openai_only.reply("They pass.")
    app = app_on(openai_only.server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await answer_with(app, pilot, "u")
        await screen_shows(app, pilot, "saved the rule allow bash(npm test:*)")
    assert "npm ran: test -- --ci" in openai_only.tool_results(2)["t1"]
    config = Path(os.environ["NEOCODE_CONFIG_DIR"]) / "config.toml"
    assert config.read_text() == '[permissions]\nallow = ["bash(npm test:*)"]\n'

    openai_only.reply("", [bash("t2", "npm test"), bash("t3", "npm test && touch pwned")])
    openai_only.reply("Done.")
    result = await run(openai_only, workspace, **env)
    assert result.code == 0, result.err
    results = openai_only.tool_results(4)
    assert "npm ran: test" in results["t2"]
    assert results["t3"].startswith("not run: bash needs approval")
    assert not (workspace / "pwned").exists()


async def test_the_rule_saved_in_the_project_and_escape_goes_back(
    openai_only: Dialect, workspace: Path, monkeypatch
) -> None:
    monkeypatch.setenv("PATH", fake_npm(workspace)["PATH"])
    openai_only.reply("", [bash("t1", "npm test")])
    openai_only.reply("They pass.")
    app = app_on(openai_only.server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await answer_with(app, pilot, "escape", "p", "w")
        await screen_shows(app, pilot, "once you trust it")
    saved = json.loads((workspace / ".neocode" / "settings.json").read_text())
    assert saved == {"permissions": {"allow": ["bash(npm test:*)"]}}
    assert "npm ran: test" in openai_only.tool_results(2)["t1"]


async def test_a_compound_command_is_allowed_for_the_session_without_repeating_it(
    openai_only: Dialect, workspace: Path
) -> None:
    compound = "cd src && python -m pytest tests/unit -q -x"
    openai_only.reply("", [bash("t1", compound)])
    openai_only.reply("Done.")
    app = app_on(openai_only.server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"run the tests", "enter")
        await wait_until(lambda: isinstance(app.screen, ApprovalScreen), pause=pilot.pause, what="the question")
        text = await screen_shows(app, pilot, "a yes to this exact command for this session")
        [keys] = [line for line in text.splitlines() if "for this session" in line]
        assert "pytest" not in keys  # the command is shown above it, once
