"""The Anthropic provider in front of a proxy (LiteLLM's /v1/messages) whose backend calls
tools only when forced: the ``tool_choice`` option reaches the Messages API request."""

from __future__ import annotations

import pytest

from neocode_tui.chat import ChatRequest, Message, ToolCall, ToolSpec
from neocode_tui.collector import collect
from neocode_tui.config import Settings
from neocode_tui.providers import make_provider
from neocode_tui.providers.anthropic import is_anthropic_api
from tests.http_model_server import Response, anthropic_turn
from tests.providers.conftest import API_KEY

TOOLS = [ToolSpec(name="read_file", description="read", parameters={"type": "object"})]
ASKING = [Message(role="user", content="read notes.txt")]
AFTER_RESULT = [*ASKING,
                Message(role="assistant", content="", tool_calls=[
                    ToolCall(id="t1", name="read_file", arguments='{"path": "notes.txt"}')]),
                Message(role="tool", content="pelican", tool_call_id="t1", name="read_file")]


async def _sent(model_server, option: str, messages: list[Message], *, tool_choice: str = "auto") -> dict:
    settings = Settings(provider="anthropic", base_url=model_server.url, model="smollm2",
                        anthropic_api_key=API_KEY, openai_compat=option)
    provider = make_provider(settings)
    model_server.enqueue(Response(body=anthropic_turn("ok")))
    request = ChatRequest(model="", messages=messages, tools=TOOLS, tool_choice=tool_choice)
    turn = await collect(provider.stream(request))
    await provider.aclose()
    assert turn.error is None and turn.text == "ok"
    return model_server.requests[-1].json


@pytest.mark.parametrize(("option", "sent"), [
    ("tool_choice=read_file", {"type": "tool", "name": "read_file"}),
    ("tool_choice=required", {"type": "any"}),
    ("tool_choice=auto", {"type": "auto"}),
    ("tool_choice=none", {"type": "none"}),
])
async def test_the_tool_choice_option_is_sent_in_the_messages_api_shape(model_server, option, sent) -> None:
    assert (await _sent(model_server, option, ASKING))["tool_choice"] == sent


async def test_a_forced_tool_choice_is_left_out_after_tool_results(model_server) -> None:
    """Forced again after the result, the model could never stop calling the tool."""
    body = await _sent(model_server, "tool_choice=read_file", AFTER_RESULT)
    assert "tool_choice" not in body
    assert body["tools"][0]["name"] == "read_file"


async def test_without_the_option_only_the_requests_own_none_is_sent(model_server) -> None:
    assert "tool_choice" not in await _sent(model_server, "", ASKING)
    body = await _sent(model_server, "tool_choice=read_file", ASKING, tool_choice="none")
    assert body["tool_choice"] == {"type": "none"}


async def test_through_a_proxy_the_system_prompt_is_a_plain_string(model_server) -> None:
    """LiteLLM passes a block list on to chat completions, where llama-cpp-python refuses a
    system message that is not a string; the messages keep their breakpoints."""
    settings = Settings(provider="anthropic", base_url=model_server.url, model="smollm2",
                        anthropic_api_key=API_KEY)
    provider = make_provider(settings)
    model_server.enqueue(Response(body=anthropic_turn("ok")))
    await collect(provider.stream(ChatRequest(model="", system="be brief", messages=ASKING, tools=TOOLS)))
    await provider.aclose()
    body = model_server.requests[0].json
    assert body["system"] == "be brief"
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}


@pytest.mark.parametrize(("base_url", "block"), [
    ("https://api.anthropic.com", True),
    ("https://API.Anthropic.com/", True),
    ("https://api.anthropic.com.proxy.example", False),
    ("https://litellm.internal/anthropic", False),
])
def test_only_api_anthropic_com_gets_the_system_prompts_breakpoint(base_url, block) -> None:
    assert is_anthropic_api(base_url + "/v1/messages") is block
