"""Fallback models in the app, driven as a person would, against the loopback server: the
screen says which model took over, and /cost prices each model apart."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from tests.support.dialects import API_KEY, FAST
from tests.support.model_server import Response, json_response
from tests.support.sse import openai_turn
from tests.support.waits import screen_shows, wait_until


async def test_the_screen_says_which_model_took_over_and_cost_counts_it(tmp_path: Path, model_server) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    url = model_server.url + "/v1"
    provider = HTTPProvider(OpenAIChat(), model="gpt-4o", base_url=url, api_key=API_KEY, options=FAST,
                            fallback_models=["gpt-4o-mini"])
    settings = Settings(provider="openai", base_url=url, model="gpt-4o", fallback_models=["gpt-4o-mini"])
    model_server.enqueue(json_response(429, {"error": {"message": "Rate limit reached for gpt-4o"}}),
                         Response(body=openai_turn("Answered by mini.", usage=(2_000, 100))))
    app = NeoCodeApp(settings, provider, workspace, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"hi", "enter")
        await wait_until(lambda: not app.working and len(app.session.messages) == 2, what="the answer")
        await screen_shows(app, pilot, "Answered by mini.",
                           "gpt-4o could not answer: this prompt goes on with gpt-4o-mini")
        await pilot.press(*"/cost", "enter")
        # 2,000 input and 100 output tokens at gpt-4o-mini's price, not gpt-4o's ($0.006).
        await screen_shows(app, pilot, "cost of this session's requests, per model:", "gpt-4o-mini  1 request",
                           "total: $0.0004")
    assert [request.json["model"] for request in model_server.requests] == ["gpt-4o", "gpt-4o-mini"]
