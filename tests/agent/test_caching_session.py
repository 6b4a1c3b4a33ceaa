"""Prompt caching, effort, budgets and the small model through the session, over real HTTP
to the loopback server: what goes on the wire turn after turn, and what the user is shown."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from neocode_tui.agent.commands.table import run_command
from neocode_tui.agent.loop_events import SessionTitled
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.providers.prompt_cache import MAX_BREAKPOINTS, count_breakpoints
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.model_server import Response
from tests.support.recorder import Recorder
from tests.support.sse import anthropic_turn, openai_turn


def without_marks(value: Any) -> Any:
    """``value`` with Anthropic's cache_control marks taken out: they are not part of the
    prefix a server caches, and they move to the newest messages each request."""
    if isinstance(value, dict):
        return {key: without_marks(item) for key, item in value.items() if key != "cache_control"}
    if isinstance(value, list):
        return [without_marks(item) for item in value]
    return value


def prefix_parts(dialect: Dialect, body: dict[str, Any]) -> tuple[str, str, list[Any]]:
    """The system prompt and the tools as sent (JSON text), and the messages."""
    if dialect.name == "openai":
        return json.dumps(body["messages"][0]), json.dumps(body["tools"]), body["messages"][1:]
    return json.dumps(body["system"]), json.dumps(body["tools"]), body["messages"]


def session_for(dialect: Dialect, workspace: Path, **settings: Any) -> tuple[AgentSession, Recorder]:
    recorder = Recorder()
    session = AgentSession(Settings(provider=dialect.name, approval="full-auto", **settings), workspace,
                           FrontEnd(listener=recorder), provider=dialect.provider(cache_control=True), save=False)
    return session, recorder


async def test_ten_tool_turns_keep_a_byte_stable_prefix(dialect: Dialect, workspace: Path) -> None:
    for number in range(6):
        dialect.reply("", [(f"c{number}", "read_file", '{"path": "app.py"}')])
    dialect.reply("I read app.py six times.")
    for number in range(2):
        dialect.reply(f"Step {number}.", [(f"d{number}", "grep", '{"pattern": "greet"}')])
    dialect.reply("greet is on line 1.")
    session, _ = session_for(dialect, workspace)

    await session.prompt("read app.py")
    await session.prompt("where is greet?")
    await session.aclose()

    bodies = [request.json for request in dialect.server.requests]
    assert len(bodies) == 10
    system, tools, _ = prefix_parts(dialect, bodies[0])
    for previous, body in zip(bodies, bodies[1:], strict=False):
        assert prefix_parts(dialect, body)[:2] == (system, tools)  # the same bytes, marks included
        earlier = json.dumps(without_marks(prefix_parts(dialect, previous)[2]))
        now = without_marks(prefix_parts(dialect, body)[2])
        assert json.dumps(now[: len(prefix_parts(dialect, previous)[2])]) == earlier
    if dialect.name == "anthropic":
        assert all(count_breakpoints(body) <= MAX_BREAKPOINTS for body in bodies)
        assert count_breakpoints(bodies[-1]) == MAX_BREAKPOINTS


async def test_cached_tokens_are_priced_as_such_and_reported(dialect: Dialect, workspace: Path) -> None:
    model = {"openai": "gpt-4o", "anthropic": "claude-sonnet-4-5"}[dialect.name]
    if dialect.name == "openai":
        body = openai_turn("Hi.", usage=(1_000, 20), cached=900)
    else:  # Anthropic counts the cache apart: 100 fresh + 900 read = 1,000 input tokens
        body = anthropic_turn("Hi.", usage=(100, 20), cache=(900, 0))
    dialect.server.enqueue(Response(body=body))
    session, _ = session_for(dialect, workspace)
    session.model = model

    await session.prompt("hi")
    report = await run_command(session, "cost")
    await session.aclose()

    # gpt-4o: $2.50 in, $1.25 cached, $10 out per million; Sonnet 4.5: $3, $0.30, $15.
    expected = {"openai": Decimal("0.001575"), "anthropic": Decimal("0.00087")}[dialect.name]
    assert session.meter.cost == expected
    assert session.meter.cache_hit_rate == 0.9
    assert "cache: 90% of input tokens read from the server's cache (900 of 1,000)" in report.text


async def test_thinking_blocks_go_back_signed_across_tool_calls(model_server, workspace: Path) -> None:
    dialect = Dialect("anthropic", model_server)
    model_server.enqueue(
        Response(body=anthropic_turn("", [("read_file", '{"path": "app.py"}')],
                                     thinking="read it first", signature="sig-A")),
        Response(body=anthropic_turn("It greets.", thinking="now answer", signature="sig-B")))
    session, _ = session_for(dialect, workspace)

    await session.prompt("what does app.py do?")
    await session.aclose()

    assistant = model_server.requests[1].json["messages"][1]
    assert assistant["role"] == "assistant"
    assert assistant["content"][0] == {"type": "thinking", "thinking": "read it first", "signature": "sig-A"}
    assert assistant["content"][1]["type"] == "tool_use"
    assert session.messages[-1].thinking[0].signature == "sig-B"


async def test_effort_changes_the_next_request_and_off_drops_it(model_server, workspace: Path) -> None:
    dialect = Dialect("openai", model_server)
    for _ in range(2):
        model_server.enqueue(Response(body=openai_turn("ok")))
    session, _ = session_for(dialect, workspace)
    session.model = "o4-mini"

    said = await run_command(session, "effort", "high")
    await session.prompt("one")
    await run_command(session, "effort", "off")
    await session.prompt("two")
    wrong = await run_command(session, "effort", "max")
    await session.aclose()

    assert said.text == "effort: high (sent to o4-mini from the next request)"
    assert [request.json.get("reasoning_effort") for request in model_server.requests] == ["high", None]
    assert wrong.level == "warning" and "low, medium, high, off" in wrong.text


async def test_the_small_model_titles_and_summarises_and_is_counted_apart(
    model_server, workspace: Path
) -> None:
    dialect = Dialect("openai", model_server)

    def answer(body: dict[str, Any]) -> Response:
        if body["model"] == "gpt-4o-mini":  # the small model: a title, then a summary
            text = "Greeting app tour" if "title" in body["messages"][0]["content"] else "They asked twice."
            return Response(body=openai_turn(text, usage=(200, 10)))
        return Response(body=openai_turn("Answer.", usage=(1_000, 50)))

    for _ in range(5):
        model_server.enqueue(answer)
    session, recorder = session_for(dialect, workspace, small_model="gpt-4o-mini",
                                    base_url=model_server.url + "/v1")
    session.model = "gpt-4o"
    session.file.save = True

    await session.prompt("what does app.py do?")
    await session.prompt("and then?")
    assert await session.compact()
    report = await run_command(session, "cost")
    await session.aclose()

    models = [request.json["model"] for request in model_server.requests]
    assert sorted(models) == ["gpt-4o", "gpt-4o", "gpt-4o-mini", "gpt-4o-mini"]
    assert session.title == "Greeting app tour"
    assert recorder.of(SessionTitled)[-1].title == "Greeting app tour"
    assert session.messages[0].content.endswith("They asked twice.")
    side = [entry for entry in session.meter.costs if entry.side]
    assert [(entry.model, entry.requests) for entry in side] == [("gpt-4o-mini", 2)]
    assert "gpt-4o-mini (side work)  2 requests" in report.text
    assert re.search(r"^  gpt-4o +2 requests", report.text, re.MULTILINE)
