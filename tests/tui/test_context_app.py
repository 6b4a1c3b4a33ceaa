"""The context meter, /context, /cost and /compact in the app, driven as a person would."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.agent.store.session_store import find_session, load_session
from neocode_tui.events import Usage
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from neocode_tui.providers.scripted import scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE, Driver, Release, Type
from tests.support.apps import scripted_app
from tests.support.dialects import API_KEY, FAST
from tests.support.model_server import Response
from tests.support.sse import openai_turn
from tests.support.waits import screen_shows, wait_until


def turns(*usages: int):
    replies = [scripted_reply(f"Answer {n}.", usage=Usage(input_tokens=tokens, output_tokens=100))
               for n, tokens in enumerate(usages, 1)]
    return [*replies, scripted_reply("Summary: two questions were answered.")]


async def test_the_meter_and_cost_follow_each_answer(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, turns(12_700, 108_700))
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("/model gpt-4o"), Type("first"), Release()])
        await screen_shows(app, pilot, "ctx 10%  $0.0328")
        assert app.status.context is not None and not app.status.context.estimated

        await driver.play([Type("second"), Release()])
        await screen_shows(app, pilot, "ctx 85%")
        assert app.status.context.fraction >= app.status.warn_at  # drawn in the warning colour


async def test_a_local_model_without_window_or_price_shows_dashes(tmp_path: Path, model_server) -> None:
    model_server.enqueue(Response(body=openai_turn("Hi.", usage=(500, 100))))
    workspace = tmp_path / "project"
    workspace.mkdir()
    provider = HTTPProvider(OpenAIChat(), model="my-local-model", base_url=model_server.url + "/v1",
                            api_key=API_KEY, options=FAST)
    app = NeoCodeApp(Settings(provider="openai", base_url=model_server.url + "/v1"), provider,
                     workspace, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"hello", "enter")
        await wait_until(lambda: not app.working and app.session.messages, what="the answer")
        await screen_shows(app, pilot, "ctx –  –")


async def test_context_and_cost_commands_say_what_fills_the_window(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, turns(12_700))
    async with app.run_test(size=SIZE) as pilot:
        await Driver(pilot).play([Type("/model gpt-4o"), Type("first"), Release(), Type("/cost")])
        await screen_shows(app, pilot, "gpt-4o  1 request", "$0.0328", "prices: genai-prices")
        await Driver(pilot).play([Type("/context")])
        await screen_shows(app, pilot, "context: 12,800 of 128,000 tokens (10%)", "tool definitions",
                           "conversation")


async def test_compact_keeps_the_history_on_screen_above_the_marker(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, turns(500, 600))
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("first question"), Release(), Type("second question"), Release()])
        await driver.play([Type("/compact the questions"), Release()])
        await screen_shows(app, pilot, "first question", "Answer 1.",
                           "⇣ compacted 2 messages (~", "tokens), on request · Ctrl+T or click to read the summary",
                           gone=["two questions were answered"])
        assert app.session.messages[0].content.endswith("Summary: two questions were answered.")


async def test_the_compaction_unfolds_to_its_summary_and_uncompact_brings_the_history_back(tmp_path: Path) -> None:
    app = scripted_app(tmp_path, [*turns(500, 600), scripted_reply("Summary again."), scripted_reply("Answer 3.")])
    async with app.run_test(size=SIZE) as pilot:
        driver = Driver(pilot)
        await driver.play([Type("first question"), Release(), Type("second question"), Release()])
        before = list(app.session.messages)
        await driver.play([Type("/compact the questions"), Release()])
        await screen_shows(app, pilot, "⇣ compacted 2 messages")
        summary_request = app.session.provider.inner.requests[-1]
        assert "the questions" in str(summary_request.messages[-1].content)  # the focus is asked for

        await pilot.press("ctrl+t")
        await screen_shows(app, pilot, "Summary: two questions were answered.", "to fold it",
                           "/uncompact brings it back until you send again")
        await driver.play([Type("/uncompact")])
        await screen_shows(app, pilot, "uncompacted: the 2 summarised messages are back")
        assert app.session.messages == before
        saved = load_session(find_session(app.workspace, app.session.id))
        assert saved.messages == before  # resuming brings the whole history back too

        await driver.play([Type("/compact"), Release(), Type("third question"), Release(), Type("/uncompact")])
        await screen_shows(app, pilot, "Answer 3.",
                           "nothing to uncompact: the conversation went on after the compaction")
