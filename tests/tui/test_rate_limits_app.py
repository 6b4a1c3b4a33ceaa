"""Rate limits in the app, against a server on 127.0.0.1 that sends the real headers and
429s: the status bar warns when one runs low, /cost lists them, a status-line script reads
them, and a long told wait is counted down until it ends or Esc stops it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from neocode_tui.providers.http import HTTPOptions
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from tests.support.dialects import API_KEY
from tests.support.model_server import Response, json_response
from tests.support.reading import screen_text
from tests.support.sse import openai_turn
from tests.support.waits import PATIENCE, screen_shows, started, wait_until

LOW = {"x-ratelimit-limit-requests": "100", "x-ratelimit-remaining-requests": "10",
       "x-ratelimit-reset-requests": "90s", "x-ratelimit-limit-tokens": "40000",
       "x-ratelimit-remaining-tokens": "39000", "x-ratelimit-reset-tokens": "1s"}


def limits_app(tmp_path: Path, url: str, **settings) -> NeoCodeApp:
    workspace = tmp_path / "project"
    workspace.mkdir()
    options = HTTPOptions(connect_timeout=PATIENCE, first_byte_timeout=PATIENCE, idle_timeout=PATIENCE,
                          max_retries=1, rate_limit_max_wait=600)
    provider = HTTPProvider(OpenAIChat(), model="gpt-4o", base_url=url + "/v1", api_key=API_KEY, options=options)
    chosen = Settings(provider="openai", base_url=url + "/v1", model="gpt-4o", **settings)
    return NeoCodeApp(chosen, provider, workspace, remember_theme=False)


def status_bar(app: NeoCodeApp) -> str:
    return next(line for line in screen_text(app).splitlines() if "approval:" in line)


async def test_a_low_limit_shows_on_the_status_bar_and_cost_lists_them_all(tmp_path: Path, model_server) -> None:
    model_server.enqueue(Response(headers=LOW, body=openai_turn("Done.")))
    app = limits_app(tmp_path, model_server.url)
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.press(*"hi", "enter")
        await screen_shows(app, pilot, "Done.", "⚠ requests 10% left · resets in 1:")
        assert "tokens" not in status_bar(app)  # 97 % left: not a warning
        await pilot.press(*"/cost", "enter")
        text = await screen_shows(app, pilot, "rate limits, as the provider's last reply reported them:")
    assert "10 of 100 left (10%)" in text and "39,000 of 40,000 left (98%)" in text


async def test_a_status_line_script_reads_rate_limits_as_claude_code_names_them(tmp_path: Path, model_server) -> None:
    model_server.enqueue(Response(headers=LOW, body=openai_turn("Done.")))
    seen = tmp_path / "seen.json"
    script = tmp_path / "statusline"
    script.write_text(f"#!/bin/sh\ncat > {seen}.part && mv {seen}.part {seen}\necho ok\n")
    script.chmod(0o755)
    app = limits_app(tmp_path, model_server.url, status_line={"command": str(script)})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"hi", "enter")
        await screen_shows(app, pilot, "Done.")
        await wait_until(lambda: seen.exists() and "rate_limits" in seen.read_text(), pause=pilot.pause,
                         what="a run that got the rate limits")
    requests = json.loads(seen.read_text())["rate_limits"]["requests"]
    assert requests["used_percentage"] == 90.0 and requests["remaining"] == 10
    assert isinstance(requests["resets_at"], int)


async def test_a_long_told_wait_counts_down_and_esc_stops_it(tmp_path: Path, model_server) -> None:
    model_server.enqueue(json_response(429, {"error": {"message": "tokens per minute"}}, {"retry-after": "40"}))
    app = limits_app(tmp_path, model_server.url)
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.press(*"hi", "enter")
        await screen_shows(app, pilot, "rate limited: waiting 0:40 for the limit to reset (retry 2/2) · Esc stops")
        await screen_shows(app, pilot, "rate limited: waiting 0:39")  # it counts down
        await pilot.press("escape")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the run to stop")
        await screen_shows(app, pilot, gone=["rate limited: waiting"])
    assert len(model_server.requests) == 1


async def test_the_countdown_names_the_interrupt_key_the_user_bound(tmp_path: Path, model_server) -> None:
    config = Path(os.environ["NEOCODE_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[keys]\ninterrupt = "ctrl+g"\n')
    model_server.enqueue(json_response(429, {}, {"retry-after": "40"}))
    app = limits_app(tmp_path, model_server.url)
    async with app.run_test(size=(140, 30)) as pilot:
        await started(app, pilot)
        await pilot.press(*"hi", "enter")
        await screen_shows(app, pilot, "(retry 2/2) · Ctrl+G stops")
        await pilot.press("ctrl+g")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the run to stop")
    assert len(model_server.requests) == 1
