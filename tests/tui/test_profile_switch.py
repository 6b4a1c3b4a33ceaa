"""``/model PROFILE`` in the app: the next prompt goes to that profile's server and model,
and a key the profile brings is scrubbed like the others."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.tui.scenarios import SIZE
from tests.support.apps import app_with_profiles
from tests.support.model_server import ModelServer, Response
from tests.support.sse import openai_turn
from tests.support.waits import screen_shows, wait_until

KEY = "sk-profile-key-SECRET-5150"


async def test_model_profile_switches_provider_url_and_model(
    tmp_path: Path, model_server: ModelServer
) -> None:
    app = app_with_profiles(tmp_path, (
        f'[profiles.local]\nprovider = "openai"\nbase_url = "{model_server.url}/v1"\n'
        f'model = "qwen-local"\nopenai_api_key = "{KEY}"\nmax_retries = 0\n'
    ))
    (app.workspace / "notes.txt").write_text(f"the key is {KEY}\n")
    model_server.enqueue(
        Response(body=openai_turn("", [("read_file", '{"path": "notes.txt"}')])),
        Response(body=openai_turn("Hello from the local model.")),
    )

    async with app.run_test(size=SIZE) as pilot:
        assert app.provider.name == "scripted"
        await pilot.press(*"/model", "enter")
        await screen_shows(app, pilot, "profiles: local")
        await pilot.press(*"/model local", "enter")
        await wait_until(lambda: app.provider.name == "openai" and not app.working, pause=pilot.pause)
        await pilot.press(*"hi", "enter")
        text = await screen_shows(app, pilot, "Hello from the local model.",  # the profile's server
                                  f"profile local: openai · qwen-local · {model_server.url}/v1")

    request = model_server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.json["model"] == "qwen-local"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    tool_result = model_server.requests[1].json["messages"][-1]
    assert tool_result["role"] == "tool" and "the key is [redacted]" in tool_result["content"]
    assert f"profile local: openai · qwen-local · {model_server.url}/v1" in text
    assert text.splitlines()[-1].split()[:3] == ["openai", "·", "qwen-local"]  # the status bar
    assert KEY not in text


async def test_model_with_an_unknown_name_still_sets_the_model_only(tmp_path: Path) -> None:
    # The bad profile is not picked at start: nothing to report yet.
    app = app_with_profiles(tmp_path, '[profiles.local]\nprovider = "openai"\nmax_turns = 0\n')
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/model gpt-x", "enter")
        await pilot.press(*"/model local", "enter")
        await screen_shows(app, pilot, "max_turns in [profiles.local]")
        assert app.session.model == "gpt-x" and app.provider.name == "scripted"
