"""Connections a long day of model requests holds, and what a request costs, against httpx.

Run: ``.venv/bin/python bench/bench_connections.py [--requests 400]``

One provider on one shared client (as the app has) sends ``--requests`` requests to a
loopback server, each ending one of the ways a turn ends: a finished stream, a turn cancelled
mid-stream, a retry after a 503, a refused request. Reported: the most TCP connections the
kernel shows open to the server at once (httpx's pool holds 100; a request that never gives
its connection back adds one each), the connections the server accepted, and the wall time
per finished request against the baseline, plain ``httpx`` streaming the same reply on the
same kind of client in the same process.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

import httpx

from neocode_tui.chat import ChatRequest, Message
from neocode_tui.collector import collect
from neocode_tui.providers.http import HTTPOptions
from neocode_tui.providers.http_provider import HTTPProvider
from neocode_tui.providers.openai import OpenAIChat

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.model_server import ModelServer, Response, json_response, open_sockets
from tests.support.providers import cancelled_at_first_text
from tests.support.sse import openai_turn

REQUEST = ChatRequest(model="", messages=[Message(role="user", content="go on")])
BODY = openai_turn("The next step edits the parser and runs the tests again. " * 20)
OPTIONS = HTTPOptions(max_retries=1, backoff_base=0.001, backoff_max=0.002)


async def cancel_mid_stream(provider: HTTPProvider, server: ModelServer) -> None:
    server.enqueue(Response(body=BODY, chunk_sizes=64, stall=60, stall_at=len(BODY) // 2))
    await cancelled_at_first_text(lambda seen: collect(provider.stream(REQUEST), seen))


async def ours(server: ModelServer, client: httpx.AsyncClient, requests: int) -> tuple[float, int]:
    provider = HTTPProvider(OpenAIChat(), model="gpt-4.1", base_url=server.url + "/v1",
                            api_key="sk-bench", options=OPTIONS, client=client)
    most, spent, finished = 0, 0.0, 0
    for number in range(requests):
        way = number % 4
        if way == 1:
            await cancel_mid_stream(provider, server)
        else:
            if way == 2:
                server.enqueue(json_response(503, {"error": {"message": "busy"}}))
            if way == 3:
                server.enqueue(json_response(400, {"error": {"message": "no such model"}}))
            else:
                server.enqueue(Response(body=BODY, chunk_sizes=64))
            start = time.perf_counter()
            turn = await collect(provider.stream(REQUEST))
            if way == 0:
                spent += time.perf_counter() - start
                finished += 1
                assert turn.finish_reason == "stop", turn.error
        most = max(most, open_sockets(server))
    return spent / finished, most


async def baseline(server: ModelServer, client: httpx.AsyncClient, requests: int) -> float:
    spent = 0.0
    for _ in range(requests):
        server.enqueue(Response(body=BODY, chunk_sizes=64))
        start = time.perf_counter()
        async with client.stream("POST", server.url + "/v1/chat/completions", json={}) as reply:
            async for _chunk in reply.aiter_bytes():
                pass
        spent += time.perf_counter() - start
    return spent / requests


async def main(requests: int) -> None:
    async with ModelServer() as server, httpx.AsyncClient() as client:
        plain = await baseline(server, client, requests // 4)
        accepted = server.connections
        per_request, most = await ours(server, client, requests)
        accepted = server.connections - accepted
    print(f"{requests} requests (a quarter each: finished, cancelled mid-stream, retried "
          "after a 503, refused)")
    print(f"most connections open at once: {most} (httpx's pool: 100)")
    print(f"connections the server accepted: {accepted}")
    print(f"per finished request: {per_request * 1000:.2f} ms against httpx alone "
          f"{plain * 1000:.2f} ms = {per_request / plain:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400)
    asyncio.run(main(parser.parse_args().requests))
