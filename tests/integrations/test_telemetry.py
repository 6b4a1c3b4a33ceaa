"""OpenTelemetry against a receiver the test runs on 127.0.0.1: what a headless run sends
when the user turned telemetry on (tokens, cost, tool calls, spans; no key, no prompt unless
asked), and that nothing is sent otherwise, nor when a workspace asks for it."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.sdk import Approval, Session
from tests.support.dialects import API_KEY, Dialect
from tests.support.headless import neocode
from tests.support.otlp_receiver import otlp_receiver

PROMPT = "what does app.py print? SECRET-PLAN-42"


def _reply(dialect: Dialect) -> None:
    dialect.reply("Reading.", [("r1", "read_file", '{"path": "app.py"}')])
    dialect.reply("It prints hello.")


async def test_a_run_with_telemetry_on_sends_tokens_cost_tool_calls_and_spans_but_no_prompt_or_key(
    openai_only: Dialect, workspace: Path, monkeypatch
) -> None:
    _reply(openai_only)
    with otlp_receiver() as received:
        monkeypatch.setenv("NEOCODE_ENABLE_TELEMETRY", "1")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", received.url)
        run = await neocode(openai_only, workspace, "-p", PROMPT, "--model", "gpt-4o", "--output-format", "json")

    assert run.code == 0, run.err
    session = json.loads(run.out)["session_id"]
    tokens = {(point["type"], point["model"]): value for point, value in received.points("neocode.token.usage")}
    assert tokens == {("input", "gpt-4o"): 20, ("output", "gpt-4o"): 10}
    [(cost_of, cost)] = received.points("neocode.cost.usage")
    assert cost_of["model"] == "gpt-4o" and abs(cost - json.loads(run.out)["cost_usd"]) < 1e-9
    assert received.points("neocode.session.count") == [({"session.id": session}, 1)]
    assert [(p["tool_name"], p["success"], v) for p, v in received.points("neocode.tool.calls")] == [
        ("read_file", True, 1)]
    [prompt] = received.events("neocode.user_prompt")
    assert prompt["prompt_length"] == len(PROMPT) and "prompt" not in prompt
    requests = received.events("neocode.api_request")
    assert [(r["input_tokens"], r["output_tokens"]) for r in requests] == [(10, 5), (10, 5)]
    [tool] = received.events("neocode.tool_result")
    assert tool["tool_name"] == "read_file" and tool["success"] is True and tool["duration_ms"] >= 0
    spans = {span.name: span for span in received.all_spans()}
    assert sorted(span.name for span in received.all_spans()) == [
        "neocode.interaction", "neocode.llm_request", "neocode.llm_request", "neocode.tool"]
    assert spans["neocode.tool"].parent_span_id == spans["neocode.interaction"].span_id
    assert API_KEY.encode() not in received.raw and b"SECRET-PLAN-42" not in received.raw
    assert b"print(greet())" not in received.raw  # the tool's output stays home


async def test_the_prompt_is_sent_only_when_the_user_asks_for_it(
    openai_only: Dialect, workspace: Path, monkeypatch
) -> None:
    _reply(openai_only)
    with otlp_receiver() as received:
        monkeypatch.setenv("NEOCODE_ENABLE_TELEMETRY", "1")
        monkeypatch.setenv("OTEL_LOG_USER_PROMPTS", "1")
        monkeypatch.setenv("OTEL_METRICS_EXPORTER", "none")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", received.url)
        run = await neocode(openai_only, workspace, "-p", PROMPT)

    assert run.code == 0, run.err
    assert [event["prompt"] for event in received.events("neocode.user_prompt")] == [PROMPT]
    assert received.metrics == []


async def test_nothing_is_sent_unless_the_user_turns_it_on_and_a_workspace_cannot(
    openai_only: Dialect, workspace: Path, monkeypatch
) -> None:
    (workspace / ".env").write_text("NEOCODE_ENABLE_TELEMETRY=1\n")
    _reply(openai_only)
    with otlp_receiver() as received:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", received.url)
        run = await neocode(openai_only, workspace, "--trust", "-p", PROMPT)

    assert run.code == 0, run.err
    assert "NEOCODE_ENABLE_TELEMETRY" in run.err and "only you set it" in run.err
    assert received.raw == bytearray()


async def test_approvals_are_counted_by_decision_and_who_decided_and_durations_are_recorded(
    openai_only: Dialect, workspace: Path, monkeypatch
) -> None:
    write = '{"path": "notes.txt", "content": "x\\n"}'
    openai_only.reply("", [("r1", "read_file", '{"path": "app.py"}'), ("w1", "write_file", write),
                           ("w2", "write_file", write.replace("notes", "other"))])
    openai_only.reply("One written, one refused.")
    with otlp_receiver() as received:
        monkeypatch.setenv("NEOCODE_ENABLE_TELEMETRY", "1")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", received.url)
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        async with await Session.start(workspace, settings={
                "provider": "openai", "base_url": openai_only.server.url + "/v1", "model": "gpt-4o",
                "approval": "ask"}) as session:
            run = session.send("read app.py, write two files")
            async for item in run:
                if isinstance(item, Approval):
                    if item.request.call_id == "w1":
                        item.allow()
                    else:
                        item.deny("not that one")
            assert (await run.wait()).reason == "done"

    decisions = {(p["tool_name"], p["decision"], p["source"]): v
                 for p, v in received.points("neocode.tool.decisions")}
    assert decisions == {("read_file", "accept", "config"): 1, ("write_file", "accept", "user"): 1,
                         ("write_file", "reject", "user"): 1}
    events = {(e["tool_name"], e["decision"]): e for e in received.events("neocode.tool_decision")}
    assert events[("write_file", "accept")]["wait_ms"] >= 0 and "wait_ms" not in events[("read_file", "accept")]
    tools = {p["tool_name"]: count for p, count, total in received.histogram("neocode.tool.duration")}
    assert tools == {"read_file": 1, "write_file": 1}, "the refused call never ran"
    [(request_of, requests, took)] = received.histogram("neocode.api_request.duration")
    assert request_of["model"] == "gpt-4o" and requests == 2 and took >= 0
    assert all(e["duration_ms"] >= 0 for e in received.events("neocode.api_request"))
