"""``neocode -p`` with caching and a budget, as a user runs it: a real subprocess, real HTTP."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from neocode_tui.agent.context.pricing import request_cost
from neocode_tui.events import Usage
from neocode_tui.providers.prompt_cache import count_breakpoints
from tests.support.dialects import Dialect
from tests.support.headless import Result, neocode, start
from tests.support.model_server import Response
from tests.support.sse import anthropic_turn, openai_turn
from tests.support.waits import PATIENCE

PRICED = {"openai": "gpt-4o", "anthropic": "claude-sonnet-4-5"}


def with_usage(dialect: Dialect, text: str, calls=(), *, fresh: int, cached: int, output: int) -> Response:
    """A turn whose input was ``fresh`` + ``cached`` tokens, as each vendor reports it."""
    named = [(name, args) for _, name, args in calls]
    if dialect.name == "openai":
        return Response(body=openai_turn(text, named, usage=(fresh + cached, output), cached=cached))
    return Response(body=anthropic_turn(text, named, usage=(fresh, output), cache=(cached, 0)))


async def test_json_output_reports_cached_tokens_and_the_hit_rate(dialect: Dialect, workspace: Path) -> None:
    dialect.server.enqueue(with_usage(dialect, "Hi.", fresh=250, cached=750, output=10))

    # Breakpoints on, as a user has them (the shared helper turns them off for other tests).
    process = await start(dialect, workspace, "-p", "hi", "--output-format", "json",
                          "--model", PRICED[dialect.name], NEOCODE_CACHE_CONTROL="true")
    out_bytes, err = await asyncio.wait_for(process.communicate(), PATIENCE)
    result = Result(process.returncode or 0, out_bytes.decode(), err.decode())
    if dialect.name == "anthropic":
        assert count_breakpoints(dialect.request(1)) == 3  # tools, system, the prompt

    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert out["usage"]["input_tokens"] == 1_000 and out["usage"]["cached_input_tokens"] == 750
    assert out["cache_hit_rate"] == 0.75
    assert out["cost_usd"] is not None and out["side_cost_usd"] is None


async def test_a_budget_stops_the_run_before_the_request_that_would_pass_it(
    dialect: Dialect, workspace: Path
) -> None:
    # 5,000 input and 100 output tokens: $0.0135 (gpt-4o) / $0.0165 (Sonnet) for the first
    # request; the next would cost about as much again, past $0.02.
    dialect.server.enqueue(with_usage(dialect, "", [("c1", "read_file", '{"path": "app.py"}')],
                                      fresh=5_000, cached=0, output=100))

    result = await neocode(dialect, workspace, "-p", "read app.py", "--max-budget-usd", "0.02",
                           "--model", PRICED[dialect.name])

    assert result.code == 3, result.err
    assert "stopped: the next request" in result.err and "past its budget of $0.0200" in result.err
    assert len(dialect.server.requests) == 1  # the second request was never sent


async def test_a_budget_for_a_model_without_a_price_is_refused_up_front(
    openai_only: Dialect, workspace: Path
) -> None:
    result = await neocode(openai_only, workspace, "-p", "hi", "--max-budget-usd", "1",
                           "--model", "my-local-model")

    assert result.code == 2
    assert "--max-budget-usd cannot be held: genai-prices has no price for 'my-local-model'" in result.err
    assert "Traceback" not in result.err and not openai_only.server.requests


async def test_a_bad_budget_is_a_clear_usage_error(openai_only: Dialect, workspace: Path) -> None:
    for value in ("-1", "nan", "lots"):
        result = await neocode(openai_only, workspace, "-p", "hi", "--max-budget-usd", value)
        assert result.code == 2, (value, result.err)
        assert "max-budget-usd" in result.err and "Traceback" not in result.err


async def test_a_server_that_reports_no_usage_still_meets_the_budget(
    openai_only: Dialect, workspace: Path
) -> None:
    # Without counts each request is charged as estimated before it went: never for free.
    for number in range(30):
        openai_only.server.enqueue(Response(body=openai_turn(
            "", [("read_file", '{"path": "app.py"}')], usage=None, call_ids=[f"c{number}"])))

    result = await neocode(openai_only, workspace, "-p", "read app.py", "--max-budget-usd", "0.03",
                           "--model", "gpt-4o", "--max-turns", "30")

    assert result.code == 3, result.err
    assert "past its budget of $0.0300" in result.err
    assert 1 < len(openai_only.server.requests) < 30


def _priced_by_size(costs: list[Decimal], output: int):
    """A model that reports usage for what it is sent (a token for each four characters,
    and a long answer), recording what each request cost: a child of the explore agent
    lists the folder forever; the parent asks three children at once, then answers."""

    def answer(payload: Any) -> Response:
        fresh = len(json.dumps(payload)) // 4
        costs.append(request_cost(Usage(input_tokens=fresh, output_tokens=output), "gpt-4o") or Decimal(0))
        system = payload["messages"][0]["content"]
        usage = (fresh, output)
        if "You are the explore agent" in system:
            return Response(body=openai_turn("", [("list_dir", "{}")], usage=usage,
                                             call_ids=[f"c{len(costs)}"]))
        if any(message["role"] == "tool" for message in payload["messages"]):
            return Response(body=openai_turn("Surveyed.", usage=usage))
        tasks = [("task", json.dumps({"description": f"look {n}", "prompt": f"survey part {n}"}))
                 for n in range(3)]
        return Response(body=openai_turn("", tasks, usage=usage, call_ids=["t0", "t1", "t2"]))

    return answer


async def test_a_budget_holds_over_subagents_running_at_once(
    openai_only: Dialect, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    costs: list[Decimal] = []
    openai_only.server.enqueue(*[_priced_by_size(costs, output=1_500)] * 40)

    result = await neocode(openai_only, workspace, "-p", "survey", "--max-budget-usd", "0.10",
                           "--model", "gpt-4o", "--max-turns", "8", "--output-format", "json")

    assert result.code == 3, result.err
    out = json.loads(result.out)
    assert out["error"]["kind"] == "budget"
    assert "past its budget of $0.1000 (--max-budget-usd)" in out["error"]["message"]
    # Every request of the session, the children's included, within the budget and one more.
    assert sum(costs) <= Decimal("0.10") + max(costs), costs
    told = {call["id"]: call["result"] for call in out["tool_calls"] if call["name"] == "task"}
    assert set(told) == {"t0", "t1", "t2"}
    assert any("the explore agent failed: stopped: the next request" in text for text in told.values())


async def test_side_work_is_held_to_the_budget_too(openai_only: Dialect, workspace: Path) -> None:
    # A title from the small model is a request like any other: past the budget, not sent.
    openai_only.reply("Hello.")

    result = await neocode(openai_only, workspace, "-p", "say hello", "--max-budget-usd", "0.000001",
                           "--model", "gpt-4o", "--small-model", "gpt-4o-mini")

    assert result.code == 3, result.err
    assert "past its budget of $0.0000 (--max-budget-usd)" in result.err
    assert openai_only.server.requests == []
