"""Every request gives its connection back: a long day of turns never runs the pool dry.

One provider on one shared client (as the app has) sends a few hundred requests over real
HTTP to a loopback server, every way a request can end: a finished stream, a stream the
reader stops at its end, a turn cancelled mid-stream, a retry after a 5xx or a cut body, a
refused request, the effort and secret-scrubbing wrappers. The sockets the operating system
holds open to the server stay a handful throughout, where a leak would hold one per request
(and httpx's pool of 100 would stall the next turn).
"""

from __future__ import annotations

import httpx

from neocode_tui.chat import ChatRequest, Message
from neocode_tui.collector import collect
from neocode_tui.known_secrets import Secrets
from neocode_tui.providers.http import HTTPOptions
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat
from neocode_tui.redact import REDACTED
from tests.support.model_server import ModelServer, Response, json_response, open_sockets
from tests.support.providers import API_KEY, cancelled_at_first_text
from tests.support.sse import openai_turn
from tests.support.waits import PATIENCE

REQUESTS = 300
OPTIONS = HTTPOptions(connect_timeout=PATIENCE, first_byte_timeout=PATIENCE, idle_timeout=PATIENCE, max_retries=1,
                      backoff_base=0.001, backoff_max=0.002)
REQUEST = ChatRequest(model="", messages=[Message(role="user", content="go on")])
ANSWER = f"Here is the next step, and the key {API_KEY} is not in it."


async def finished(provider: HTTPProvider, server: ModelServer) -> str:
    server.enqueue(Response(body=openai_turn(ANSWER), chunk_sizes=9))
    return (await collect(Secrets(keys=[API_KEY]).stream(provider.stream(REQUEST)))).text


async def cancelled(provider: HTTPProvider, server: ModelServer) -> str:
    body = openai_turn(ANSWER)
    server.enqueue(Response(body=body, chunk_sizes=40, stall=60, stall_at=len(body) // 2))
    ended = await cancelled_at_first_text(lambda seen: collect(provider.stream(REQUEST), seen))
    return "cancelled" if ended else "not cancelled"


async def retried_after_a_5xx(provider: HTTPProvider, server: ModelServer) -> str:
    server.enqueue(json_response(503, {"error": {"message": "busy"}}),
                   Response(body=openai_turn("after a retry")))
    return (await collect(provider.stream(REQUEST))).text


async def retried_after_a_cut(provider: HTTPProvider, server: ModelServer) -> str:
    server.enqueue(Response(body=openai_turn(ANSWER), chunk_sizes=20, cut_after=60),
                   Response(body=openai_turn("after a cut")))
    return (await collect(provider.stream(REQUEST))).text


async def refused(provider: HTTPProvider, server: ModelServer) -> str:
    server.enqueue(json_response(400, {"error": {"message": "no such model"}}))
    turn = await collect(provider.stream(REQUEST))
    return "refused" if turn.error and "no such model" in turn.error.message else "?"


async def test_a_few_hundred_requests_every_way_they_end_keep_a_handful_of_connections() -> None:
    ways = [finished, cancelled, retried_after_a_5xx, retried_after_a_cut, refused]
    expected = {finished: ANSWER.replace(API_KEY, REDACTED), cancelled: "cancelled",
                retried_after_a_5xx: "after a retry", retried_after_a_cut: "after a cut",
                refused: "refused"}
    async with ModelServer() as server, httpx.AsyncClient() as client:
        plain = HTTPProvider(OpenAIChat(), model="gpt-4.1", base_url=server.url + "/v1",
                             api_key=API_KEY, options=OPTIONS, client=client)
        with_effort = HTTPProvider(OpenAIChat(), model="o3", base_url=server.url + "/v1",
                                   api_key=API_KEY, options=OPTIONS, client=client, effort="high")
        most_open = 0
        for number in range(REQUESTS):
            way = ways[number % len(ways)]
            provider = with_effort if number % 2 else plain
            outcome = await way(provider, server)
            assert outcome == expected[way], (number, way.__name__, outcome)
            most_open = max(most_open, open_sockets(server))
        assert len(server.requests) > REQUESTS
        assert most_open <= 3, f"{most_open} connections open after {REQUESTS} requests"
