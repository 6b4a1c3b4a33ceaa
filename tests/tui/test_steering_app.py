"""Steering in the real app, its model the loopback HTTP server held at will: Enter while the
agent works joins the running turn, Tab keeps a message for after it, and the screen shows
where each went."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.support.calls import bash
from tests.support.http_apps import http_app, reply, send
from tests.support.reading import screen_text
from tests.support.waits import screen_shows, wait_until


def users(app) -> list[str]:
    return [m.content for m in app.session.messages if m.role == "user"]


async def test_enter_joins_the_running_turn_and_tab_keeps_one_for_after_it(model_server, workspace: Path) -> None:
    held = asyncio.Event()
    reply(model_server, "Reformatting.", [bash("b1", "echo formatted")], wait=held)
    reply(model_server, "Done, with tabs.")
    reply(model_server, "README added.")
    app = http_app(model_server, workspace)
    async with app.run_test(size=(110, 32)) as pilot:
        await send(app, pilot, "reformat app.py")
        await wait_until(lambda: len(model_server.requests) == 1, pause=pilot.pause, what="the first request")
        await pilot.press(*"use tabs", "enter")
        await pilot.press(*"also a README", "enter")
        await screen_shows(app, pilot, "next turn › use tabs → the running turn reads it at its next request",
                           "next turn › also a README")
        await pilot.press("tab")  # the newest waits for after this turn instead
        await screen_shows(app, pilot, "next turn › use tabs", "after this › also a README")
        held.set()
        await wait_until(lambda: len(model_server.requests) == 3 and not app.working, pause=pilot.pause,
                         what="both prompts answered")
        shown = await screen_shows(app, pilot, "› use tabs", "Done, with tabs.", "› also a README", "README added.",
                                   gone=["next turn ›", "after this ›"])

    second = json.dumps(model_server.requests[1].json["messages"])
    assert "use tabs" in second and "also a README" not in second
    assert users(app) == ["reformat app.py", "use tabs", "also a README"]
    assert shown.index("› use tabs") < shown.index("Done, with tabs.") < shown.index("› also a README")


async def test_what_the_turn_never_read_comes_back_into_the_input_after_esc(model_server, workspace: Path) -> None:
    reply(model_server, "Working on it.", stall=60, stall_at=20)
    app = http_app(model_server, workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot, "go")
        await wait_until(lambda: len(model_server.requests) == 1, pause=pilot.pause, what="the request")
        await pilot.press(*"then stop", "enter")
        await screen_shows(app, pilot, "next turn › then stop")
        await pilot.press("escape")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the interrupt")
        assert app.prompt.text == "then stop" and app.session.steers.waiting == []
        assert "next turn ›" not in screen_text(app) and users(app) == ["go"]
