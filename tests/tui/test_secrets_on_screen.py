"""The app's screen never shows a secret: a key the model streams a few characters at a
time, or the credentials of a profile's base URL in the line ``/model PROFILE`` prints."""

from __future__ import annotations

import os
from pathlib import Path

from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from tests.support.apps import app_with_profiles
from tests.support.model_server import ModelServer, Response
from tests.support.reading import screen_text
from tests.support.sse import openai_turn
from tests.support.waits import wait_until

KEY = "sk-screen-key-Vb4Nc8Kd1Pw6Hy3Zf5"
OTHER_KEY = "sk-other-profile-Rt9Xq7Lm2Gj0Ts"


def pieces(key: str, text: str) -> list[str]:
    return [key[at : at + 8] for at in range(len(key) - 7) if key[at : at + 8] in text]


async def test_a_key_streamed_three_characters_at_a_time_is_not_on_screen(
    tmp_path: Path, model_server: ModelServer
) -> None:
    config = Path(os.environ["NEOCODE_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[profiles.spare]\nopenai_api_key = "{OTHER_KEY}"\n')
    workspace = tmp_path / "project"
    workspace.mkdir()
    settings = Settings(provider="openai", base_url=f"{model_server.url}/v1", model="m",
                        openai_api_key=KEY, max_retries=0)
    answer = (f"Your key is {KEY} and the spare one {OTHER_KEY}.\n\nIts tail: `{KEY[-10:]}`, "
              "keep it safe.")
    model_server.enqueue(Response(body=openai_turn(answer, reasoning=f"I see {KEY}", delta=3),
                                  chunk_sizes=[7, 5]))
    app = NeoCodeApp(settings, None, workspace, remember_theme=False)

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"what are my keys?", "enter")
        await wait_until(lambda: "keep it safe" in screen_text(app) and not app.working,
                         pause=pilot.pause, what="the answer")
        await pilot.press("ctrl+o")  # the reasoning unfolded too
        await pilot.pause()
        text = screen_text(app)

    assert "Your key is [redacted] and the spare one [redacted]." in text and "I see [redacted]" in text
    assert not pieces(KEY, text) and not pieces(OTHER_KEY, text)
    saved = "".join(path.read_text() for path in (tmp_path / "data").rglob("*.jsonl"))
    assert "[redacted]" in saved and not pieces(KEY, saved) and not pieces(OTHER_KEY, saved)


async def test_model_profile_shows_its_base_url_without_credentials(
    tmp_path: Path, model_server: ModelServer
) -> None:
    host = model_server.url.removeprefix("http://")
    app = app_with_profiles(tmp_path, (
        f'[profiles.proxy]\nprovider = "openai"\nbase_url = "http://alice:pw-Lz7Rk2Xq9@{host}/v1"\n'
        f'model = "m"\nopenai_api_key = "{KEY}"\n'
    ))

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/model proxy", "enter")
        await wait_until(lambda: "profile proxy:" in screen_text(app), pause=pilot.pause)
        text = screen_text(app)

    assert f"profile proxy: openai · m · http://[redacted]@{host}/v1" in text
    assert "alice" not in text and "pw-Lz7Rk2Xq9" not in text


async def test_a_key_pasted_into_the_prompt_is_echoed_and_recalled_scrubbed(
    tmp_path: Path, model_server: ModelServer
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    settings = Settings(provider="openai", base_url=f"{model_server.url}/v1", model="m",
                        openai_api_key=KEY, max_retries=0)
    model_server.enqueue(Response(body=openai_turn("Noted, without it.")))
    app = NeoCodeApp(settings, None, workspace, remember_theme=False)

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*f"ship it with {KEY} now", "enter")
        await wait_until(lambda: "Noted, without it." in screen_text(app) and not app.working,
                         pause=pilot.pause, what="the answer")
        await pilot.press("up")  # the prompt comes back from the history as it was shown
        await wait_until(lambda: "ship it with" in app.prompt.text, pause=pilot.pause)
        text = screen_text(app) + app.prompt.text

    assert "ship it with [redacted] now" in text and not pieces(KEY, text)
    assert "ship it with [redacted] now" in str(model_server.requests[0].json)
