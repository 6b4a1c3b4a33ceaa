"""Any JSON value in any field of a chunk: the dialect parsers give well-typed events or a
``malformed`` error, never an exception, and the collector turns the result into a turn."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from neocode_tui.collector import collect
from neocode_tui.events import StreamError, StreamEvent
from neocode_tui.providers.anthropic import AnthropicDialect
from neocode_tui.providers.dialect import CallIds, EventPump
from neocode_tui.providers.openai import OpenAIDialect

ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def hole(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """The value a server should send, or any JSON value at all."""
    return st.one_of(good, good, ANY_JSON)


def obj(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """An object with some of ``fields`` present, or any JSON value in its place."""
    return hole(st.fixed_dictionaries({}, optional=fields))


TEXT = st.text(max_size=6)
COUNT = st.integers(0, 10_000)

OPENAI_CHUNK = obj(
    choices=hole(st.lists(obj(
        index=hole(st.just(0)),
        delta=obj(
            role=hole(st.just("assistant")), content=hole(TEXT), reasoning_content=hole(TEXT),
            reasoning=hole(TEXT), refusal=hole(TEXT),
            tool_calls=hole(st.lists(obj(
                index=hole(st.integers(0, 2)), id=hole(st.sampled_from(["a", "b"])),
                type=hole(st.just("function")),
                function=obj(name=hole(st.sampled_from(["bash", "grep"])), arguments=hole(TEXT)),
            ), max_size=2)),
        ),
        finish_reason=hole(st.sampled_from(["stop", "tool_calls", "length"])),
    ), max_size=2)),
    usage=obj(prompt_tokens=hole(COUNT), completion_tokens=hole(COUNT),
              prompt_tokens_details=obj(cached_tokens=hole(COUNT)),
              completion_tokens_details=obj(reasoning_tokens=hole(COUNT))),
    x_groq=obj(usage=obj(prompt_tokens=hole(COUNT))),
    error=hole(obj(message=hole(TEXT), type=hole(TEXT), code=hole(TEXT))),
)

BLOCK_INDEX = hole(st.integers(0, 2))
ANTHROPIC_EVENT = st.one_of(
    st.tuples(st.just("message_start"), obj(message=obj(usage=obj(
        input_tokens=hole(COUNT), output_tokens=hole(COUNT),
        cache_read_input_tokens=hole(COUNT), cache_creation_input_tokens=hole(COUNT))))),
    st.tuples(st.just("content_block_start"), obj(index=BLOCK_INDEX, content_block=obj(
        type=hole(st.sampled_from(["text", "tool_use", "thinking"])), id=hole(TEXT),
        name=hole(st.sampled_from(["bash", "grep"])), input=hole(st.just({})), text=hole(TEXT),
        thinking=hole(TEXT)))),
    st.tuples(st.just("content_block_delta"), obj(index=BLOCK_INDEX, delta=obj(
        type=hole(st.sampled_from(["text_delta", "input_json_delta", "thinking_delta"])),
        text=hole(TEXT), partial_json=hole(TEXT), thinking=hole(TEXT)))),
    st.tuples(st.just("content_block_stop"), obj(index=BLOCK_INDEX)),
    st.tuples(st.just("message_delta"), obj(delta=obj(stop_reason=hole(TEXT)),
                                            usage=obj(output_tokens=hole(COUNT)))),
    st.tuples(st.just("message_stop"), obj()),
    st.tuples(st.just("error"), obj(error=obj(type=hole(TEXT), message=hole(TEXT)))),
    st.tuples(TEXT, ANY_JSON),
)


def check(pump: EventPump, body: bytes) -> None:
    events: list[StreamEvent] = pump.feed(body) + pump.close()
    for event in events:
        # Strict validation catches a wrong type that model_construct let through.
        type(event).model_validate(event.model_dump(warnings=False), strict=True)
    assert isinstance(events[-1], StreamError) or events[-1].type == "message_done"
    if isinstance(events[-1], StreamError) and events[-1].kind == "malformed":
        assert events[-1].message.startswith("malformed chunk from the server: ")

    async def source():
        for event in events:
            yield event

    turn = asyncio.run(collect(source()))
    json.dumps(turn.to_replay_json())


@settings(max_examples=400, deadline=None)
@given(st.lists(OPENAI_CHUNK, min_size=1, max_size=4))
def test_openai_chunks_of_any_shape_never_crash(chunks: list[Any]) -> None:
    body = b"".join(b"data: %s\n\n" % json.dumps(chunk).encode() for chunk in chunks)
    check(EventPump(OpenAIDialect(CallIds())), body + b"data: [DONE]\n\n")


@settings(max_examples=400, deadline=None)
@given(st.lists(ANTHROPIC_EVENT, min_size=1, max_size=6))
def test_anthropic_events_of_any_shape_never_crash(events: list[tuple[str, Any]]) -> None:
    body = b"".join(b"event: %s\ndata: %s\n\n" % (name.encode(), json.dumps(payload).encode())
                    for name, payload in events)
    check(EventPump(AnthropicDialect(CallIds())), body + b'event: message_stop\ndata: {"type": "message_stop"}\n\n')
