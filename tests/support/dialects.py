"""The loopback model server playing OpenAI or Anthropic: how a test scripts its turns and
reads back what was sent to it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from neocode_tui.providers.anthropic import AnthropicMessages
from neocode_tui.providers.http import HTTPOptions
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from tests.support.model_server import ModelServer, Response
from tests.support.sse import anthropic_turn, openai_turn
from tests.support.waits import PATIENCE

API_KEY = "sk-agent-test-SECRET-7f3a9c"
FAST = HTTPOptions(connect_timeout=PATIENCE, first_byte_timeout=PATIENCE, idle_timeout=PATIENCE, max_retries=0)
"""Time limits a busy machine cannot strike: a test of a time limit sets its own."""


@dataclass
class Dialect:
    """One wire format: how to script a turn and how to read the loop's requests."""

    name: str
    server: ModelServer

    def provider(self, *, cache_control: bool = False) -> HTTPProvider:
        """``cache_control``: Anthropic's breakpoints, which tests of other behaviour leave
        out so their bodies read as the conversation (tests/agent/test_caching_session.py
        holds the default, on)."""
        if self.name == "openai":
            return HTTPProvider(OpenAIChat(), model="gpt-test", base_url=self.server.url + "/v1",
                                api_key=API_KEY, options=FAST)
        return HTTPProvider(AnthropicMessages(cache_control=cache_control), model="claude-test",
                            base_url=self.server.url, api_key=API_KEY, options=FAST)

    def turn(self, text: str = "", calls: Sequence[tuple[str, str, str]] = (), **kw: Any) -> bytes:
        """A turn's SSE body; ``calls`` are ``(id, name, arguments_json)``."""
        build = openai_turn if self.name == "openai" else anthropic_turn
        return build(text, [(name, args) for _, name, args in calls],
                     call_ids=[call_id for call_id, _, _ in calls] or None, **kw)

    def reply(self, text: str = "", calls: Sequence[tuple[str, str, str]] = (), **kw: Any) -> None:
        self.server.enqueue(Response(body=self.turn(text, calls), chunk_sizes=[7, 13, 3], **kw))

    def request(self, number: int) -> dict[str, Any]:
        """The JSON body of the ``number``-th request (1-based)."""
        return self.server.requests[number - 1].json

    def tool_results(self, number: int) -> dict[str, str]:
        """Tool results in request ``number``: call id -> the text the model was sent."""
        body = self.request(number)
        if self.name == "openai":
            return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}
        return {
            block["tool_use_id"]: block["content"]
            for message in body["messages"] if isinstance(message["content"], list)
            for block in message["content"] if block["type"] == "tool_result"
        }

    def system(self, number: int) -> str:
        body = self.request(number)
        if self.name == "openai":
            return body["messages"][0]["content"]
        system = body["system"]  # a text block with a cache breakpoint, or plain text
        return "".join(block["text"] for block in system) if isinstance(system, list) else system
