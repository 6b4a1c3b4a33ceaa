"""Providers pointed at the loopback model server, with timings short enough for tests."""

from __future__ import annotations

import pytest

from neocode_tui.providers.anthropic import AnthropicMessages
from neocode_tui.providers.http import HTTPOptions
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat

API_KEY = "sk-test-SECRET-0123456789abcdef"
FAST = HTTPOptions(connect_timeout=2, first_byte_timeout=2, idle_timeout=2, max_retries=0,
                   backoff_base=0.01, backoff_max=0.05)


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
