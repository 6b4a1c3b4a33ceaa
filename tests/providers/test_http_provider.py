"""One HTTP provider over both wire formats: what the user gets is each API's own shape, from
the same provider, as ``make_provider`` builds it from the settings."""

from __future__ import annotations

import re

import pytest

from neocode_tui.chat import ChatRequest, Message
from neocode_tui.collector import collect
from neocode_tui.providers import make_provider
from neocode_tui.settings.model import Settings
from tests.support.model_server import Response
from tests.support.providers import API_KEY
from tests.support.sse import anthropic_sse, openai_sse

REQUEST = ChatRequest(model="", messages=[Message(role="user", content="list")])
OPENAI_CALL = openai_sse([
    {"choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "function": {"name": "bash", "arguments": '{"command": "ls"}'}}]}}]},
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
])
ANTHROPIC_CALL = anthropic_sse([
    ("message_start", {"message": {"usage": {"input_tokens": 3, "output_tokens": 1}}}),
    ("content_block_start", {"index": 0, "content_block": {"type": "tool_use", "name": "bash"}}),
    ("content_block_delta", {"index": 0, "delta": {"type": "input_json_delta",
                                                   "partial_json": '{"command": "ls"}'}}),
    ("content_block_stop", {"index": 0}),
    ("message_delta", {"delta": {"stop_reason": "tool_use"}}),
    ("message_stop", {}),
])


@pytest.mark.parametrize(("name", "suffix", "body", "made_up_id"), [
    ("openai", "/v1", OPENAI_CALL, r"call_neo_[0-9a-f]{6}_1"),
    ("anthropic", "", ANTHROPIC_CALL, r"toolu_neo_[0-9a-f]{6}_1"),
])
async def test_a_call_without_an_id_gets_one_shaped_like_its_apis(
    model_server, name: str, suffix: str, body: bytes, made_up_id: str
) -> None:
    settings = Settings(provider=name, base_url=model_server.url + suffix, model="m",
                        openai_api_key=API_KEY, anthropic_api_key=API_KEY, max_retries=0)
    provider = make_provider(settings)
    model_server.enqueue(Response(body=body))
    turn = await collect(provider.stream(REQUEST))
    await provider.aclose()
    [call] = turn.tool_calls
    assert provider.name == name and (call.name, call.arguments_json) == ("bash", {"command": "ls"})
    assert re.fullmatch(made_up_id, call.id), call.id
