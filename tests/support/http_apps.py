"""The app whose model is the loopback HTTP server (OpenAI's wire), as the Pilot tests of a
feature across real requests start and drive it."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from tests.support.dialects import API_KEY, FAST
from tests.support.model_server import Response
from tests.support.sse import openai_turn
from tests.support.waits import started


def reply(server, text: str = "", calls=(), **kw) -> None:
    """The server's next answer: ``text``, then ``calls`` as ``(id, name, arguments_json)``."""
    server.enqueue(Response(body=openai_turn(text, [(name, args) for _, name, args in calls],
                                             call_ids=[c[0] for c in calls] or None), **kw))


def http_app(server, workspace: Path, approval: str = "full-auto", **kw) -> NeoCodeApp:
    provider = HTTPProvider(OpenAIChat(), model="test-model", base_url=server.url + "/v1", api_key=API_KEY,
                            options=FAST)
    settings = Settings(provider="openai", base_url=server.url + "/v1", approval=approval, sandbox="off")
    return NeoCodeApp(settings, provider, workspace, remember_theme=False, blink=False, **kw)


async def send(app: NeoCodeApp, pilot, text: str) -> None:
    """Type ``text`` into the input once the app is up, and press Enter."""
    await started(app, pilot)
    await pilot.press(*text, "enter")
