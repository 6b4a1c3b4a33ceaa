"""The model's ``ask_user`` questions in the real app, its model the loopback HTTP server,
answered with the dialog's keys as a person would."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.tui.screens.questions import QuestionsScreen
from tests.support.calls import QUESTIONS, ask_call
from tests.support.http_apps import http_app, reply, send
from tests.support.waits import screen_shows, wait_until


async def test_one_key_per_option_a_tick_list_and_an_own_answer_reach_the_model(
    model_server, workspace: Path
) -> None:
    reply(model_server, "", [ask_call()])
    reply(model_server, "Going with SQLite.")
    app = http_app(model_server, workspace, approval="plan")
    async with app.run_test(size=(100, 30)) as pilot:
        await send(app, pilot, "build the app")
        await wait_until(lambda: isinstance(app.screen, QuestionsScreen), pause=pilot.pause, what="the questions")
        await screen_shows(app, pilot, "The agent asks · 1 of 2 · Database", "Which database should the app use?",
                           "1 PostgreSQL (Recommended) a server, robust under load", "2 SQLite",
                           "o Other: type your own answer", "1-2 pick")
        await pilot.press("2")
        await screen_shows(app, pilot, "2 of 2 · Scope", "[ ] Sign-in", "1-3 tick · enter send",
                           "backspace back")
        await pilot.press("enter")  # nothing ticked yet: it waits
        await pilot.press("1", "3", "o", *"an audit log", "enter")
        await screen_shows(app, pilot, "[x] Sign-in", "[ ] Billing", "[x] Export", "Other: an audit log")
        await pilot.press("enter")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the answer")
        await screen_shows(app, pilot, "? the agent asked you", "Which database should the app use? → SQLite",
                           "Which parts should come first? → Sign-in; Export; their own answer: an audit log")
        session_id = app.session.id

    result = model_server.requests[1].json["messages"][-1]["content"]
    assert '"Which database should the app use?" → SQLite' in result
    assert "→ Sign-in; Export; their own answer: an audit log" in result
    resumed = http_app(model_server, workspace)
    async with resumed.run_test(size=(100, 30)) as pilot:
        await send(resumed, pilot, f"/resume {session_id}")
        await screen_shows(resumed, pilot, "Which database should the app use? → SQLite", "Going with SQLite.")


async def test_escape_closes_the_questions_and_the_model_is_told(model_server, workspace: Path) -> None:
    reply(model_server, "", [ask_call("q1", QUESTIONS[:1])])
    reply(model_server, "I will take PostgreSQL then.")
    app = http_app(model_server, workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        await send(app, pilot, "build the app")
        await wait_until(lambda: isinstance(app.screen, QuestionsScreen), pause=pilot.pause, what="the questions")
        await pilot.press("o", *"half-typed", "escape")  # Esc leaves the typing first
        assert isinstance(app.screen, QuestionsScreen)
        await pilot.press("escape")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the answer")
        await screen_shows(app, pilot, "I will take PostgreSQL then.")
    assert "closed the questions without answering" in model_server.requests[1].json["messages"][-1]["content"]
