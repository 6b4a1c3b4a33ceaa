"""Providers pointed at the loopback model server: retries that back off briefly, and time
limits a busy machine cannot strike (a test of a time limit sets its own)."""

from __future__ import annotations

import pytest

from neocode_tui.providers.anthropic import AnthropicMessages
from neocode_tui.providers.http import HTTPOptions
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from tests.helpers import PATIENCE

API_KEY = "sk-test-SECRET-0123456789abcdef"
FAST = HTTPOptions(connect_timeout=PATIENCE, first_byte_timeout=PATIENCE, idle_timeout=PATIENCE, max_retries=0,
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
