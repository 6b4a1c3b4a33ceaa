"""What a model server checks of a transcript's tool calls, asserted of what the agent keeps."""

from __future__ import annotations

from neocode_tui.agent.loop import AgentLoop
from neocode_tui.chat import Message


def assert_valid(messages: list[Message]) -> None:
    """What OpenAI-compatible servers and Anthropic check about tool calls."""
    if messages:
        assert messages[0].role == "user"
    position = 0
    while position < len(messages):
        message = messages[position]
        assert message.role != "tool", f"a result without its call at {position}"
        position += 1
        if message.role == "assistant" and message.tool_calls:
            ids = [call.id for call in message.tool_calls]
            assert all(ids) and len(set(ids)) == len(ids)
            results = messages[position : position + len(ids)]
            assert [(m.role, m.tool_call_id) for m in results] == [("tool", i) for i in ids]
            position += len(ids)


def assert_transcript_valid(loop: AgentLoop) -> None:
    """Every tool call in the transcript has exactly one result after it."""
    calls = [call.id for m in loop.messages if m.role == "assistant" for call in m.tool_calls]
    results = [m.tool_call_id for m in loop.messages if m.role == "tool"]
    assert sorted(calls) == sorted(results)
    assert len(set(results)) == len(results)
