"""How fast a streamed reply goes from bytes to a collected turn, against the openai SDK.

Run: ``.venv/bin/python bench/bench_stream.py [--chunks 20000] [--read 1024] [--repeat 5]``

One large, realistic chat-completions stream (text in 4-character deltas, then three
parallel tool calls whose argument fragments interleave, then a usage chunk) is cut into
network-sized reads, and the same reads go through:

- **ours**: ``SSEDecoder`` + ``OpenAIDialect`` (via ``EventPump``) + ``collect`` draining an
  async iterator, i.e. bytes to ``CollectedTurn`` with parsed tool arguments;
- **SDK, full**: what ``openai``'s ``Stream`` + ``ChatCompletionStreamState`` do for the same
  bytes: its ``SSEDecoder``, ``json.loads``, ``construct_type(ChatCompletionChunk)``,
  ``handle_chunk`` (events consumed) and ``get_final_completion``; the equivalent work;
- **SDK, accumulation only**: ``handle_chunk`` + ``get_final_completion`` on chunk objects
  built before the clock starts (no SSE, no JSON): the most generous baseline for the SDK.

Each is run ``--repeat`` times and the best time is kept. Both results are checked to agree.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from openai._models import construct_type
from openai._streaming import SSEDecoder as SDKDecoder
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from neocode_tui.collector import CollectedTurn, collect
from neocode_tui.providers.dialect import CallIds, EventPump
from neocode_tui.providers.openai import OpenAIDialect

WORDS = ("the stream ", "decoder ", "handles ", "naïve ", "UTF-8 ✓ ", "chunks ", "and ", "tool calls, ")


def make_stream(chunks: int) -> bytes:
    base = {"id": "chatcmpl-BmQ3xk9T2c1yJ0aXv7rQ4pZ8LwE5n", "object": "chat.completion.chunk",
            "created": 1750000000, "model": "gpt-4o-2024-08-06", "service_tier": "default",
            "system_fingerprint": "fp_07871e2ad8"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return b"data: " + json.dumps({**base, "choices": [choice], "usage": None,
                                       "obfuscation": "aZ3"}).encode() + b"\n\n"

    text = "".join(WORDS[i % len(WORDS)] for i in range(chunks))
    text_chunks = chunks * 7 // 10
    body = [chunk({"role": "assistant", "content": "", "refusal": None})]
    body += [chunk({"content": text[i * 4 : i * 4 + 4]}) for i in range(text_chunks)]
    calls = 3
    body.append(chunk({"tool_calls": [
        {"index": n, "id": f"call_{n}abcdefghijklmnopqrstu", "type": "function",
         "function": {"name": "write_file", "arguments": ""}} for n in range(calls)]}))
    fragments = (chunks - text_chunks - 4) // calls
    for i in range(fragments):  # interleaved: call 0, 1, 2, 0, 1, 2...
        for n in range(calls):
            if i == 0:
                piece = f'{{"path": "f{n}.py", "content": "'
            else:
                piece = "x = 1\\n" if i < fragments - 1 else '"}'
            body.append(chunk({"tool_calls": [{"index": n, "function": {"arguments": piece}}]}))
    body.append(chunk({}, "tool_calls"))
    body.append(b"data: " + json.dumps({**base, "choices": [], "usage": {
        "prompt_tokens": 1432, "completion_tokens": chunks, "total_tokens": 1432 + chunks,
        "prompt_tokens_details": {"cached_tokens": 1024}}}).encode() + b"\n\n")
    body.append(b"data: [DONE]\n\n")
    return b"".join(body)


def reads_of(body: bytes, size: int) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


def ours(reads: list[bytes]) -> tuple[CollectedTurn, int]:
    pump = EventPump(OpenAIDialect(CallIds()))
    count = 0

    async def events():
        nonlocal count
        for read in reads:
            batch = pump.feed(read)
            count += len(batch)
            for event in batch:
                yield event
        for event in pump.close():
            count += 1
            yield event

    return asyncio.run(collect(events())), count


def sdk_full(reads: list[bytes]) -> tuple[Any, int]:
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    count = 0
    for sse in SDKDecoder().iter_bytes(iter(reads)):
        if sse.data.startswith("[DONE]"):
            break
        chunk = construct_type(type_=ChatCompletionChunk, value=json.loads(sse.data))
        count += len(list(state.handle_chunk(chunk)))  # type: ignore[arg-type]
    return state.get_final_completion(), count


def sdk_accumulate(chunks: list[ChatCompletionChunk]) -> tuple[Any, int]:
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    count = 0
    for chunk in chunks:
        count += len(list(state.handle_chunk(chunk)))
    return state.get_final_completion(), count


def best_of(repeat: int, run: Callable[[], tuple[Any, int]]) -> tuple[float, Any, int]:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        result, count = run()
        best = min(best, time.perf_counter() - started)
    return best, result, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=20000)
    parser.add_argument("--read", type=int, default=1024, help="bytes per network read")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    body = make_stream(args.chunks)
    reads = reads_of(body, args.read)
    parsed = [construct_type(type_=ChatCompletionChunk, value=json.loads(line[6:]))
              for line in body.decode().split("\n\n") if line.startswith("data: {")]

    ours_time, turn, ours_events = best_of(args.repeat, lambda: ours(reads))
    full_time, completion, sdk_events = best_of(args.repeat, lambda: sdk_full(reads))
    acc_time, _, _ = best_of(args.repeat, lambda: sdk_accumulate(parsed))  # type: ignore[arg-type]

    message = completion.choices[0].message
    assert turn.text == message.content, "our text differs from the SDK's"
    assert [c.arguments for c in turn.tool_calls] == [c.function.arguments for c in message.tool_calls]

    n = len(parsed)
    print(f"stream: {n} chunks, {len(body) / 1e6:.1f} MB in {len(reads)} reads of {args.read} B; "
          f"best of {args.repeat}")
    print(f"{'':34} {'seconds':>8} {'chunks/s':>10} {'events/s':>10}  ratio (ours faster)")
    rows = [("ours: decode+parse+collect", ours_time, ours_events),
            ("openai SDK: full (SSE+JSON+state)", full_time, sdk_events),
            ("openai SDK: accumulation only", acc_time, sdk_events)]
    for label, seconds, events in rows:
        ratio = seconds / ours_time
        print(f"{label:34} {seconds:8.3f} {n / seconds:10,.0f} {events / seconds:10,.0f}  {ratio:5.1f}x")


if __name__ == "__main__":
    main()
