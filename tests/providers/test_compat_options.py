"""The OpenAI-compatible provider's compatibility options: what each one puts on the wire,
and that the defaults get a tool round trip through a llama-cpp-like server."""

from __future__ import annotations

import pytest

from neocode_tui.chat import ChatRequest, Message, ToolCall, ToolSpec
from neocode_tui.collector import collect
from neocode_tui.providers import make_provider
from neocode_tui.providers.http import HTTPOptions
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from neocode_tui.settings.compat import OpenAICompat, parse_compat
from neocode_tui.settings.load import load_settings
from tests.support.llama_like import LlamaLike
from tests.support.model_server import Response
from tests.support.sse import openai_turn
from tests.support.waits import PATIENCE

TOOLS = [ToolSpec(name="read_file", description="read", parameters={"type": "object"})]
ASKED = [Message(role="user", content="read a.py")]
CALLED = ASKED + [
    Message(role="assistant", tool_calls=[ToolCall(id="c1", name="read_file", arguments='{"path":"a.py"}')]),
    Message(role="tool", content="print(1)", tool_call_id="c1", name="read_file"),
]


def provider(url: str, compat: str = "") -> HTTPProvider:
    return HTTPProvider(OpenAIChat(parse_compat(compat)), model="m", base_url=url + "/v1", api_key="x",
                        options=HTTPOptions(max_retries=0, first_byte_timeout=PATIENCE, idle_timeout=PATIENCE))


async def sent(server, compat: str = "", **request) -> dict:
    """The JSON body one request carries with ``compat`` set."""
    server.enqueue(Response(body=openai_turn("ok")))
    model = provider(server.url, compat)
    await collect(model.stream(ChatRequest(model="m", **{"messages": ASKED, **request})))
    await model.aclose()
    return server.requests[-1].json


async def test_the_defaults_send_what_openai_and_the_tested_servers_accept(model_server) -> None:
    body = await sent(model_server, system="be brief", tools=TOOLS, messages=CALLED, max_tokens=50)
    assert body["messages"][0] == {"role": "system", "content": "be brief"}
    assert body["messages"][2]["content"] == ""
    assert body["stream_options"] == {"include_usage": True} and body["max_tokens"] == 50
    assert "tool_choice" not in body and "parallel_tool_calls" not in body


@pytest.mark.parametrize("setting, content", [("", ""), ("tool_call_content=null", None),
                                              ("tool_call_content=omit", "absent")])
async def test_tool_call_content_option(model_server, setting, content) -> None:
    body = await sent(model_server, setting, tools=TOOLS, messages=CALLED)
    assert body["messages"][1].get("content", "absent") == content
    assert body["messages"][1]["tool_calls"][0]["id"] == "c1"


async def test_the_other_options_reach_the_wire(model_server) -> None:
    body = await sent(model_server, "stream_options=false,max_tokens_field=max_completion_tokens,"
                      "parallel_tool_calls=false,system_role=developer,tool_choice=auto",
                      system="be brief", tools=TOOLS, max_tokens=50)
    assert "stream_options" not in body and "max_tokens" not in body
    assert body["max_completion_tokens"] == 50 and body["parallel_tool_calls"] is False
    assert body["messages"][0]["role"] == "developer" and body["tool_choice"] == "auto"


@pytest.mark.parametrize("choice, wire", [
    ("required", "required"),
    ("read_file", {"type": "function", "function": {"name": "read_file"}}),
])
async def test_a_forcing_tool_choice_only_answers_the_user(model_server, choice, wire) -> None:
    fresh = await sent(model_server, f"tool_choice={choice}", tools=TOOLS)
    after_results = await sent(model_server, f"tool_choice={choice}", tools=TOOLS, messages=CALLED)
    final = await sent(model_server, f"tool_choice={choice}", tools=TOOLS, tool_choice="none")
    assert fresh["tool_choice"] == wire
    assert "tool_choice" not in after_results  # or the model could never stop calling
    assert final["tool_choice"] == "none"  # the loop's last request wants an answer


async def test_null_content_is_what_a_llama_cpp_server_refuses(model_server) -> None:
    llama = LlamaLike({"path": "a.py"})
    model_server.enqueue(llama, llama)
    refused = await collect(provider(model_server.url, "tool_call_content=null").stream(
        ChatRequest(model="m", messages=CALLED, tools=TOOLS)))
    accepted = await collect(provider(model_server.url).stream(
        ChatRequest(model="m", messages=CALLED, tools=TOOLS)))
    assert refused.error.kind == "server" and "HTTP 500" in refused.error.message
    assert (accepted.text, accepted.error) == ("Done.", None)


async def test_a_llama_cpp_server_calls_tools_only_when_the_choice_names_one(model_server) -> None:
    llama = LlamaLike({"path": "a.py"})
    model_server.enqueue(llama, llama)
    ignored = await collect(provider(model_server.url).stream(ChatRequest(model="m", messages=ASKED, tools=TOOLS)))
    forced = await collect(provider(model_server.url, "tool_choice=read_file").stream(
        ChatRequest(model="m", messages=ASKED, tools=TOOLS)))
    assert ignored.tool_calls == [] and ignored.text == "Done."
    assert [(c.name, c.arguments_json) for c in forced.tool_calls] == [("read_file", {"path": "a.py"})]


def test_settings_read_the_options_from_the_environment(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("NEOCODE_OPENAI_COMPAT", " tool_choice = required , stream_options=off ")
    settings = load_settings(tmp_path).settings
    assert settings.openai_compat == OpenAICompat(tool_choice="required", stream_options=False)
    model = make_provider(settings.model_copy(update={"provider": "openai"}))
    assert model.wire.compat.tool_choice == "required"


@pytest.mark.parametrize("text, words", [
    ("tool_choise=auto", "unknown option 'tool_choise' (keys: tool_choice, stream_options"),
    ("stream_options", "'stream_options' is not key=value"),
    ("parallel_tool_calls=maybe", "parallel_tool_calls='maybe': give true or false"),
    ("max_tokens_field=max_output_tokens", "max_tokens_field='max_output_tokens': Input should be"),
    ("tool_choice=", "give auto, required, none, default or a function name"),
    ("tool_choice=a,tool_choice=b", "option 'tool_choice' is given twice"),
])
def test_bad_options_say_what_is_wrong(text, words) -> None:
    with pytest.raises(ValueError) as caught:
        parse_compat(text)
    assert words in str(caught.value)


def test_default_and_empty_mean_the_servers_own_default() -> None:
    assert parse_compat("tool_choice=default,parallel_tool_calls=default") == OpenAICompat()
    assert parse_compat("") == OpenAICompat()
