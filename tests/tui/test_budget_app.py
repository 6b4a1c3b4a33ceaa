"""The budget, effort and cache figures in the app, driven as a person would, against the
loopback server."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from neocode_tui.tui.screens.budget import BudgetScreen
from tests.support.dialects import API_KEY, FAST
from tests.support.model_server import Response
from tests.support.reading import screen_text
from tests.support.sse import openai_turn
from tests.support.waits import screen_shows, wait_until


def budget_app(tmp_path: Path, server_url: str) -> NeoCodeApp:
    workspace = tmp_path / "project"
    workspace.mkdir()
    provider = HTTPProvider(OpenAIChat(), model="gpt-4o", base_url=server_url + "/v1", api_key=API_KEY, options=FAST)
    settings = Settings(provider="openai", base_url=server_url + "/v1", model="gpt-4o", max_budget_usd=0.02)
    return NeoCodeApp(settings, provider, workspace, remember_theme=False)


async def ask_twice(app: NeoCodeApp, pilot, answer: str) -> None:
    """A first answer that costs 80 % of the budget, then a prompt the budget asks about."""
    await pilot.press(*"first", "enter")
    await wait_until(lambda: not app.working and len(app.session.messages) == 2, what="the first answer")
    await screen_shows(app, pilot, "80% of its budget of $0.0200")
    await pilot.press(*"second", "enter")
    await wait_until(lambda: isinstance(app.screen, BudgetScreen), what="the budget question")
    await screen_shows(app, pilot, "Go past the budget?", "budget of $0.0200.")
    await pilot.press(answer)
    await wait_until(lambda: not app.working and len(app.session.messages) >= 3, what="the end of the run")


async def test_the_app_warns_at_80_percent_and_a_yes_sends_the_request(tmp_path: Path, model_server) -> None:
    # 6,000 input and 100 output tokens of gpt-4o: $0.016, 80 % of $0.02.
    model_server.enqueue(Response(body=openai_turn("First.", usage=(6_000, 100))),
                         Response(body=openai_turn("Second.", usage=(6_100, 100))))
    app = budget_app(tmp_path, model_server.url)
    async with app.run_test(size=SIZE) as pilot:
        await ask_twice(app, pilot, "y")
        await screen_shows(app, pilot, "Second.")
        assert len(model_server.requests) == 2


async def test_a_no_stops_the_run_before_the_request(tmp_path: Path, model_server) -> None:
    model_server.enqueue(Response(body=openai_turn("First.", usage=(6_000, 100))))
    app = budget_app(tmp_path, model_server.url)
    async with app.run_test(size=SIZE) as pilot:
        await ask_twice(app, pilot, "n")
        await screen_shows(app, pilot, "stopped: the next request")
        assert len(model_server.requests) == 1


def status_bar(app: NeoCodeApp) -> str:
    return next(line for line in screen_text(app).splitlines() if "approval:" in line)


async def test_the_status_bar_shows_the_effort_and_the_cache_share(tmp_path: Path, model_server) -> None:
    model_server.enqueue(Response(body=openai_turn("First.", usage=(1_000, 100), cached=600)))
    app = budget_app(tmp_path, model_server.url)
    async with app.run_test(size=(160, 30)) as pilot:
        await pilot.press(*"/model o4-mini", "enter")
        await screen_shows(app, pilot, "o4-mini")
        await pilot.press(*"/effort high", "enter")
        await screen_shows(app, pilot, "effort: high (sent to o4-mini")
        assert "effort: high" in status_bar(app)
        await pilot.press(*"hi", "enter")
        await wait_until(lambda: not app.working and len(app.session.messages) == 2, what="the answer")
        await screen_shows(app, pilot, "cache 60%")
        assert "effort: high" in status_bar(app)


async def test_an_effort_the_model_is_not_sent_is_not_on_the_status_bar(tmp_path: Path, model_server) -> None:
    app = budget_app(tmp_path, model_server.url)
    async with app.run_test(size=(160, 30)) as pilot:
        await pilot.press(*"/effort high", "enter")
        await screen_shows(app, pilot, "gpt-4o is not known to take it, so it is not sent")
        assert "effort" not in status_bar(app)
