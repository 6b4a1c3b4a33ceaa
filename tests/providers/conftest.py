"""Providers pointed at the loopback model server (``tests.support.providers``: their key and
time limits)."""

from __future__ import annotations

import pytest

from neocode_tui.providers.anthropic import AnthropicMessages
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from tests.support.providers import API_KEY, FAST


@pytest.fixture
async def openai(model_server):
    provider = HTTPProvider(OpenAIChat(), model="gpt-test", base_url=model_server.url + "/v1",
                            api_key=API_KEY, options=FAST)
    yield provider
    await provider.aclose()


@pytest.fixture
async def anthropic(model_server):
    provider = HTTPProvider(AnthropicMessages(), model="claude-test", base_url=model_server.url,
                            api_key=API_KEY, options=FAST)
    yield provider
    await provider.aclose()
