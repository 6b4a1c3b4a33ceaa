"""Background commands in the app, against the loopback model: Ctrl+B sends the running
command there, its panel says how long it ran, /ps lists and stops it."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from tests.support.model_server import ModelServer, Response
from tests.support.processes import sleepers
from tests.support.sse import openai_turn
from tests.support.waits import screen_shows, started, wait_until


def app_on(model_server: ModelServer, workspace: Path, clock: list[float]) -> NeoCodeApp:
    settings = Settings(provider="openai", base_url=f"{model_server.url}/v1", model="m",
                        openai_api_key="sk-test-key-bg", max_retries=0, approval="full-auto")
    return NeoCodeApp(settings, None, workspace, remember_theme=False, clock=lambda: clock[0])


async def test_ctrl_b_sends_the_running_command_to_the_background_and_ps_stops_it(
    tmp_path: Path, model_server: ModelServer
) -> None:
    token = f"35{secrets.randbelow(10**6)}"
    command = f"echo serving on 8000; sleep {token}; echo never"
    model_server.enqueue(
        Response(body=openai_turn("Starting it.", [("bash", json.dumps({"command": command}))])),
        Response(body=openai_turn("It runs in the background.")),
    )
    workspace = tmp_path / "project"
    workspace.mkdir()
    clock = [100.0]
    app = app_on(model_server, workspace, clock)

    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await pilot.press(*"start the server", "enter")
        await screen_shows(app, pilot, "serving on 8000", "◐ running")
        await wait_until(lambda: len(sleepers(token)) == 1, pause=pilot.pause, what="the sleeper")
        clock[0] = 108.2
        # The panel's time moves on by itself, and it says which key sends it away.
        await screen_shows(app, pilot, "◐ running · 8.2 s · Ctrl+B sends it to the background")

        await pilot.press("ctrl+b")
        shown = await screen_shows(app, pilot, "◐ running in the background as b1 · 8.2 s",
                                   "It runs in the background.")
        assert "✓ done" not in shown and "kill_bash" not in shown, "not done, and no model tool named"
        [result] = [m["content"] for m in model_server.requests[1].json["messages"] if m["role"] == "tool"]
        assert result.startswith("id: b1\n") and result.endswith("\nserving on 8000"), "the output so far"
        assert sleepers(token), "it goes on"
        clock[0] = 111.0
        await screen_shows(app, pilot, "◐ running in the background as b1 · 11 s")  # still counting

        clock[0] = 112.0
        await pilot.press(*"/ps", "enter")
        listed = await screen_shows(app, pilot, "background commands, 1 running:", "/ps kill ID stops one")
        listing = " ".join(listed[listed.index("background commands, 1 running:"):].split())
        assert listing.startswith(f"background commands, 1 running: b1 running, 12 s echo serving on 8000; "
                                  f"sleep {token}; echo never serving on 8000 /ps kill ID"), listing

        await pilot.press(*"/ps kill b1", "enter")
        await screen_shows(app, pilot, f"stopped b1 (echo serving on 8000; sleep {token}; echo never)",
                           "⏹ b1 stopped by the user · ran 12 s")
        assert sleepers(token) == []
        await pilot.press("ctrl+b")  # nothing runs now: said, and nothing breaks
        await screen_shows(app, pilot, "Ctrl+B: no command is running in the foreground")


async def test_quitting_stops_background_commands_and_the_exit_line_says_so(
    tmp_path: Path, model_server: ModelServer
) -> None:
    from neocode_tui.cli.app import exit_line

    token = f"36{secrets.randbelow(10**6)}"
    call = json.dumps({"command": f"sleep {token}", "run_in_background": True})
    model_server.enqueue(Response(body=openai_turn("", [("bash", call)])),
                         Response(body=openai_turn("Started.")))
    workspace = tmp_path / "project"
    workspace.mkdir()
    app = app_on(model_server, workspace, [0.0])

    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await pilot.press(*"start it", "enter")
        await screen_shows(app, pilot, "Started.")
        await wait_until(lambda: len(sleepers(token)) == 1, pause=pilot.pause, what="the sleeper")

    assert sleepers(token) == []
    assert exit_line(app).startswith(f"neocode: stopped 1 background command (b1: sleep {token}); session ")
