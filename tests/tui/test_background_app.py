"""Background commands in the app, against the loopback model: Ctrl+B sends the running
command there, its panel goes on showing it, the status bar counts it, F2 and /ps show it
live and stop it, and quitting says what it stops before it does."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from textual.widgets import Static

from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from neocode_tui.tui.screens.jobs import JobsScreen
from tests.support.model_server import ModelServer, Response
from tests.support.processes import sleepers
from tests.support.reading import screen_text, toast_text
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

        await wait_until(lambda: not app.working, pause=pilot.pause, what="the run's end")
        clock[0] = 112.0
        await screen_shows(app, pilot, "1 command running · F2")  # the status bar, while idle
        await pilot.press("f2")  # the live view: its state, time and output as it comes
        await screen_shows(app, pilot, "Background commands · 1 running", "› b1 ◐ running · 12 s",
                           f"echo serving on 8000; sleep {token}; echo never", "k stop the chosen one")
        await pilot.press("k")
        await screen_shows(app, pilot, "Background commands · 0 running", "⏹ stopped by the user · ran 12 s")
        await pilot.press("escape")
        await screen_shows(app, pilot, "⏹ b1 stopped by the user · ran 12 s", gone=["command running"])
        assert sleepers(token) == []
        await pilot.press("ctrl+b")  # nothing runs now: said, and nothing breaks
        await screen_shows(app, pilot, "Ctrl+B: no command is running in the foreground")


async def test_f2_and_ps_show_a_background_command_s_output_as_it_comes(
    tmp_path: Path, model_server: ModelServer
) -> None:
    token = f"37{secrets.randbelow(10**6)}"
    command = f"echo first line; while [ ! -e go ]; do sleep 0.05; done; echo second line; sleep {token}"
    call = json.dumps({"command": command, "run_in_background": True})
    model_server.enqueue(Response(body=openai_turn("", [("bash", call)])),
                         Response(body=openai_turn("Started.")))
    workspace = tmp_path / "project"
    workspace.mkdir()
    app = app_on(model_server, workspace, [0.0])

    def view() -> str:
        """What the live view lists, read off it (the panel behind it shows the tail too)."""
        assert isinstance(app.screen, JobsScreen), "the live view is open"
        return str(app.screen.query_one("#body", Static).render())

    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await pilot.press(*"start it", "enter")
        await screen_shows(app, pilot, "Started.", "◐ running in the background as b1")
        await pilot.press("f2")
        await wait_until(lambda: "first line" in view(), pause=pilot.pause, what="the first line in F2's view")
        assert "second line" not in view()
        (workspace / "go").touch()  # the command prints its next line while the view is open
        await wait_until(lambda: "second line" in view(), pause=pilot.pause, what="the next line, as it came")
        await wait_until(lambda: len(sleepers(token)) == 1, pause=pilot.pause, what="the sleeper")
        await pilot.press("escape")

        await pilot.press(*"/ps", "enter")  # the same view
        await wait_until(lambda: "first line" in view() and "second line" in view(), pause=pilot.pause,
                         what="/ps showing both lines")
        await screen_shows(app, pilot, "Background commands · 1 running", "› b1 ◐ running")
        await pilot.press("k")
        await screen_shows(app, pilot, "Background commands · 0 running", "⏹ stopped by the user")
        assert sleepers(token) == []


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

    async with app.run_test(size=SIZE, notifications=True) as pilot:  # were there a toast, it shows
        await started(app, pilot)
        await pilot.press(*"start it", "enter")
        await screen_shows(app, pilot, "Started.", "◐ running in the background as b1")
        await wait_until(lambda: len(sleepers(token)) == 1, pause=pilot.pause, what="the sleeper")
        assert "run_in_background" not in screen_text(app), "the panel speaks of the background, not a flag"

        stops = f"1 background command is still running and stops with NeoCode: b1 sleep {token}"
        await pilot.press(*"/quit", "enter")
        await screen_shows(app, pilot, "Quit NeoCode?", stops, "y quit and stop them")
        await pilot.press("n")
        await screen_shows(app, pilot, "1 command running", gone=["Quit NeoCode?"])
        assert app.is_running and len(sleepers(token)) == 1, "staying stops nothing"

        await pilot.press("ctrl+c")  # the first of two says what the second stops, below the input
        await screen_shows(app, pilot, f"Press Ctrl+C again to quit. {stops}.", "Started.")
        assert toast_text(app) == "", "no toast over the conversation"
        await pilot.press(*"/quit", "enter")
        await screen_shows(app, pilot, "Quit NeoCode?")
        await pilot.press("y")
        await wait_until(lambda: not app.is_running, pause=pilot.pause, what="the app's end")

    assert sleepers(token) == []
    assert exit_line(app).startswith(f"neocode: stopped 1 background command (b1: sleep {token}); session ")


async def test_the_approval_for_a_background_command_says_it_runs_in_the_background(
    tmp_path: Path, model_server: ModelServer
) -> None:
    call = json.dumps({"command": "make serve", "run_in_background": True})
    model_server.enqueue(Response(body=openai_turn("", [("bash", call)])),
                         Response(body=openai_turn("Not started, then.")))
    workspace = tmp_path / "project"
    workspace.mkdir()
    settings = Settings(provider="openai", base_url=f"{model_server.url}/v1", model="m",
                        openai_api_key="sk-test-key-bg", max_retries=0, approval="ask")
    app = NeoCodeApp(settings, None, workspace, remember_theme=False)

    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await pilot.press(*"serve it", "enter")
        await screen_shows(app, pilot, "Allow bash? make serve [runs in the background]")
        await pilot.press("escape")
        shown = await screen_shows(app, pilot, "Not started, then.", "↗ runs in the background")
        assert "run_in_background" not in shown
