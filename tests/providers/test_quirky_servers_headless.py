"""``neocode -p`` against loopback servers that behave like the ones people run: a real
subprocess, a real HTTP server on 127.0.0.1, what the user reads on stdout and stderr."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.llama_like import LlamaLike
from tests.support.model_server import ModelServer, Response, json_response
from tests.support.sse import openai_sse, openai_turn
from tests.support.waits import PATIENCE, wait_until

NEOCODE = str(Path(sys.executable).parent / "neocode")


@dataclass
class Result:
    code: int
    out: str
    err: str
    seconds: float


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("the answer is 42\n")
    return root


async def neocode(server: ModelServer, cwd: Path, *args: str, **env: str) -> Result:
    environment = {k: v for k, v in os.environ.items()
                   if not k.endswith("_API_KEY") and not k.startswith("NEOCODE_")}
    environment.update(NEOCODE_PROVIDER="openai", NEOCODE_BASE_URL=server.url + "/v1",
                       NEOCODE_MODEL="smollm2", OPENAI_API_KEY="x",
                       NEOCODE_DATA_DIR=str(cwd.parent / "data"),
                       XDG_CONFIG_HOME=str(cwd.parent / "config"), **env)
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        NEOCODE, *args, cwd=cwd, env=environment, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), PATIENCE)
    assert process.returncode is not None
    return Result(process.returncode, out.decode(), err.decode(), time.monotonic() - started)


async def test_a_tool_round_trip_and_continue_work_on_a_llama_cpp_like_server(
    model_server, workspace
) -> None:
    llama = LlamaLike({"path": "notes.txt"}, answer="The notes say 42.")
    model_server.enqueue(llama, llama, llama)

    first = await neocode(model_server, workspace, "-p", "what is in notes.txt?",
                          "--output-format", "json",
                          NEOCODE_OPENAI_COMPAT="tool_choice=read_file")
    later = await neocode(model_server, workspace, "-p", "thanks", "--continue",
                          "--output-format", "json")

    assert first.code == 0, first.err
    output = json.loads(first.out)
    assert output["result"] == "The notes say 42." and output["error"] is None
    assert output["tool_calls"][0]["name"] == "read_file"
    assert "the answer is 42" in output["tool_calls"][0]["result"]
    follow_up = model_server.requests[1].json
    assistant = next(m for m in follow_up["messages"] if m.get("tool_calls"))
    assert assistant["content"] == ""  # null is what the real server refused with HTTP 500
    assert "tool_choice" not in follow_up  # forced only when answering the user
    assert later.code == 0, later.err
    assert json.loads(later.out)["result"] == "The notes say 42."
    assert any(m.get("tool_calls") for m in model_server.requests[2].json["messages"])


async def test_a_server_that_sends_no_usage_reports_unknown_not_zero(model_server, workspace) -> None:
    partial = openai_sse([{"choices": [{"delta": {"content": "hi"}, "finish_reason": "stop"}]},
                          {"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 0}}])
    model_server.enqueue(Response(body=openai_turn("hi", usage=None)), Response(body=partial))
    silent = await neocode(model_server, workspace, "-p", "hi", "--output-format", "stream-json")
    counted = await neocode(model_server, workspace, "-p", "hi", "--output-format", "stream-json")

    def turn_usage(result: Result) -> dict | None:
        assert result.code == 0, result.err
        [finished] = [json.loads(line) for line in result.out.splitlines()
                      if json.loads(line)["type"] == "turn_finished"]
        return finished["usage"]

    assert turn_usage(silent) is None
    assert turn_usage(counted) == {"input_tokens": 12, "output_tokens": 0, "cached_input_tokens": None,
                                   "cache_creation_input_tokens": None, "reasoning_tokens": None}


async def test_an_empty_reply_is_explained_and_retried_once(model_server, workspace) -> None:
    model_server.enqueue(Response(body=b""), Response(body=b""), Response(body=b""))
    result = await neocode(model_server, workspace, "-p", "hi", NEOCODE_MAX_RETRIES="3")
    assert result.code == 1
    assert len(model_server.requests) == 2
    assert "the server returned an empty response: the prompt may exceed its context" in result.err
    assert "stream truncated" not in result.err


async def test_a_silent_server_holds_a_run_for_two_first_byte_timeouts_at_most(
    model_server, workspace
) -> None:
    model_server.enqueue(*[Response(body=openai_turn("late"), stall=3600)] * 4)  # never answers
    result = await neocode(model_server, workspace, "-p", "hi", NEOCODE_FIRST_BYTE_TIMEOUT="1")
    assert result.code == 1 and "no response from" in result.err and "within 1 s" in result.err
    # The run gives up on the second attempt maybe before the server has read it.
    await wait_until(lambda: len(model_server.requests) >= 2, what="the second attempt at the server")
    assert len(model_server.requests) == 2
    assert result.seconds < PATIENCE


async def test_a_long_multi_line_error_body_is_one_short_line(model_server, workspace) -> None:
    trace = ("Traceback (most recent call last):\n" + "  File \"server.py\", line 1, in x\n" * 80
             + "RuntimeError: llama_decode returned -3 because the KV cache is full and "
             + "cannot be shifted " * 30)
    model_server.enqueue(Response(status=500, headers={"content-type": "text/plain"},
                                  body=trace.encode()))
    result = await neocode(model_server, workspace, "-p", "hi", NEOCODE_MAX_RETRIES="0")
    assert result.code == 1
    [line] = [line for line in result.err.splitlines() if "RuntimeError" in line]
    assert "File \"server.py\"" not in result.err
    assert len(line) < 300 and line.endswith("…") and not line[:-1].endswith(" ")


@pytest.mark.parametrize("value, words", [
    ("tool_choise=auto", "unknown option 'tool_choise'"),
    ("stream_options=sometimes", "stream_options='sometimes': give true or false"),
])
async def test_bad_compatibility_options_are_refused_with_the_reason(
    model_server, workspace, value, words
) -> None:
    result = await neocode(model_server, workspace, "-p", "hi", NEOCODE_OPENAI_COMPAT=value)
    assert result.code == 2 and words in result.err and "Traceback" not in result.err
    assert model_server.requests == []


@pytest.mark.parametrize("name, value, words", [
    ("NEOCODE_MAX_RETRIES", "-1", "greater than or equal to 0"),
    ("NEOCODE_FIRST_BYTE_TIMEOUT", "nan", "finite number"),
    ("NEOCODE_IDLE_TIMEOUT", "-5", "greater than 0"),
    ("NEOCODE_REQUEST_TIMEOUT", "0", "greater than 0"),
])
async def test_bad_retry_and_timeout_settings_are_refused(model_server, workspace, name, value, words) -> None:
    result = await neocode(model_server, workspace, "-p", "hi", **{name: value})
    assert result.code == 2 and name in result.err and words in result.err
    assert "Traceback" not in result.err


async def test_context_overflow_says_to_compact(model_server, workspace) -> None:
    model_server.enqueue(json_response(400, {"error": {
        "message": "This model's maximum context length is 8192 tokens. However, your messages "
                   "resulted in 9100 tokens.", "type": "invalid_request_error",
        "code": "context_length_exceeded"}}))
    result = await neocode(model_server, workspace, "-p", "hi", "--output-format", "json")
    error = json.loads(result.out)["error"]
    assert result.code == 1 and len(model_server.requests) == 1
    assert error["kind"] == "context_overflow" and "/compact" in error["message"]
