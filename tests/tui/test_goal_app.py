"""``/goal`` in the real app, its model (agent and judge alike) the loopback HTTP server:
the status bar keeps the goal and its turn, the judge's word is said, Esc stops it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.support.http_apps import http_app, reply, send
from tests.support.reading import screen_text
from tests.support.waits import screen_shows, wait_until

NOT_YET = json.dumps({"met": False, "reason": "the tests were not run"})
MET = json.dumps({"met": True, "reason": "pytest printed 3 passed"})


def status_bar(app) -> str:
    return screen_text(app).splitlines()[-1]


async def test_the_goal_and_its_turn_stay_in_the_status_bar_until_the_judge_finds_it_met(
    model_server, workspace: Path
) -> None:
    held = asyncio.Event()
    reply(model_server, "I fixed the import.")
    reply(model_server, NOT_YET)
    reply(model_server, "3 passed.", wait=held)
    reply(model_server, MET)
    app = http_app(model_server, workspace)
    async with app.run_test(size=(120, 30)) as pilot:
        await send(app, pilot, "/goal the tests pass")
        await screen_shows(app, pilot, "goal set: the tests pass", "I fixed the import.",
                           "goal not met yet after 1 turn: the tests were not run · working on")
        await wait_until(lambda: "◎ goal: the tests pass · turn 2" in status_bar(app), pause=pilot.pause,
                         what="the goal in the status bar")
        held.set()
        await screen_shows(app, pilot, "3 passed.", "goal met after 2 turns: pytest printed 3 passed")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the end of the goal")
        assert "◎ goal" not in status_bar(app)
        await send(app, pilot, "/goal")
        await screen_shows(app, pilot, "no active goal; the last one was met after 2 turns: the tests pass")


async def test_esc_stops_the_goal_in_the_middle_of_a_turn(model_server, workspace: Path) -> None:
    reply(model_server, "Working on it.", stall=60, stall_at=40)
    app = http_app(model_server, workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot, "/goal the tests pass")
        await wait_until(lambda: app.working and len(model_server.requests) == 1, pause=pilot.pause,
                         what="the first turn")
        await pilot.press("escape")
        await screen_shows(app, pilot, "goal stopped after 1 turn: interrupted (Esc)")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the stop")
        assert "◎ goal" not in status_bar(app) and len(model_server.requests) == 1


async def test_the_goal_names_the_key_the_user_stops_a_run_with(model_server, workspace: Path,
                                                                 tmp_path: Path) -> None:
    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[keys]\ninterrupt = "ctrl+g"\n')
    reply(model_server, "Working on it.", stall=60, stall_at=40)
    app = http_app(model_server, workspace)
    async with app.run_test(size=(120, 30)) as pilot:
        await send(app, pilot, "/goal the tests pass")
        await screen_shows(app, pilot, "/goal clear drops it, Ctrl+G stops)")
        await wait_until(lambda: app.working and len(model_server.requests) == 1, pause=pilot.pause,
                         what="the first turn")
        await pilot.press("ctrl+g")
        await screen_shows(app, pilot, "goal stopped after 1 turn: interrupted (Ctrl+G)")
        assert "Esc stops" not in screen_text(app)
