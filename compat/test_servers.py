"""``neocode`` end to end against llama-cpp-python's OpenAI-compatible server and SmolLM2,
directly and through LiteLLM's proxy (its chat completions, and its Anthropic
``/v1/messages`` with ``NEOCODE_PROVIDER=anthropic``).

The model is tiny, so checks assert what must hold whatever it writes: the run ends
normally, every output format is well formed, a tool call makes the round trip, a session
continues, a killed server is a clean error, and a recorded stream replays into the turn the
official ``openai`` SDK accumulates from the same bytes.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openai.lib.streaming.chat import ChatCompletionStreamState

from compat.conftest import THINKING_MODEL, Endpoint, LlamaServer, Neocode, Run

pytestmark = pytest.mark.compat

FORCED_READ = "tool_choice=read_file"


def options(text: str):
    """Records which compatibility options a check needed (shown in the results table)."""
    def mark(function):
        function.compat_options = text
        return function
    return mark


def assert_clean(run: Run) -> None:
    assert "Traceback" not in run.err, run.err


@pytest.mark.anthropic
@pytest.mark.parametrize("output_format", ["text", "json", "stream-json"])
def test_a_text_answer_in_every_output_format(neocode: Neocode, output_format: str) -> None:
    """A text answer (-p) in every output format"""
    run = neocode("-p", "Say hello in one short sentence.", "--output-format", output_format)
    assert run.code == 0, run.err
    assert_clean(run)
    if output_format == "text":
        assert run.out.strip()
    elif output_format == "json":
        result = run.json()
        assert result["result"].strip() and result["error"] is None and result["turns"] == 1
    else:
        lines = run.lines()
        assert lines[0]["type"] == "session" and lines[-1]["type"] == "run_finished"
        assert any(line["type"] == "stream" and line["event"]["type"] == "text_delta" for line in lines)


@pytest.mark.anthropic
@options(FORCED_READ)
def test_a_tool_round_trip_then_continue(neocode: Neocode) -> None:
    """A tool round trip (forced tool choice), then --continue"""
    (neocode.workspace / "notes.txt").write_text("The secret word is pelican.\n")
    run = neocode("-p", "Read the file notes.txt and tell me the secret word.",
                  "--output-format", "json", NEOCODE_OPENAI_COMPAT=FORCED_READ)
    assert run.code == 0, run.err
    assert_clean(run)
    result = run.json()
    assert result["error"] is None and result["stop_reason"] == "done"
    assert [call["name"] for call in result["tool_calls"]] == ["read_file"]
    assert result["turns"] == 2  # the follow-up with the tool result was accepted

    later = neocode("-p", "Thanks. Say it once more.", "--continue", "--output-format", "json")
    assert later.code == 0, later.err
    assert later.json()["session_id"] == result["session_id"]
    assert later.json()["error"] is None


@pytest.mark.anthropic(only=True)
def test_a_thinking_budget_through_the_proxy(neocode: Neocode) -> None:
    """Thinking (NEOCODE_EFFORT=low, a Claude model name)"""
    run = neocode("-p", "Say hello in one short sentence.", "--output-format", "json",
                  NEOCODE_MODEL=THINKING_MODEL, NEOCODE_EFFORT="low")
    assert_clean(run)
    # LiteLLM turns the budget into reasoning_effort and refuses it for a model whose
    # entry does not say it reasons; neocode says which setting to drop.
    error = run.json()["error"]
    assert run.code == 1 and error["kind"] == "bad_request", run.out
    assert "reasoning" in error["message"] and "/effort off" in error["message"]


def test_the_server_killed_mid_stream(tmp_path: Path, spare_llama: LlamaServer, logs: Path) -> None:
    """Server killed mid-stream: one clean error, the session resumes"""
    neocode = Neocode(tmp_path, spare_llama.url)
    process = neocode.popen("-p", "Write a very long story about a dragon and a lighthouse.",
                            "--output-format", "stream-json", NEOCODE_MAX_RETRIES="1")
    assert process.stdout is not None
    for line in process.stdout:
        event = json.loads(line)
        if event["type"] == "stream" and event["event"]["type"] == "text_delta":
            break
    spare_llama.kill()
    started = time.monotonic()
    rest, err = process.communicate(timeout=60)
    assert process.returncode == 1 and time.monotonic() - started < 30
    assert "Traceback" not in err
    finished = json.loads(rest.splitlines()[-1])
    assert finished["type"] == "run_finished" and finished["reason"] == "error"
    assert finished["error"]["kind"] == "connection"

    spare_llama.start(logs / "spare.log")
    resumed = neocode("-p", "Say hello.", "--continue", "--output-format", "json")
    assert resumed.code == 0, resumed.err
    assert resumed.json()["error"] is None


class _RecordingProxy(BaseHTTPRequestHandler):
    """Forwards one POST to the model server and keeps every byte of the reply."""

    upstream = ""
    recorded: list[bytes] = []

    def do_POST(self) -> None:  # noqa: N802 (the http.server API)
        body = self.rfile.read(int(self.headers["content-length"]))
        headers = {"content-type": "application/json",
                   "authorization": self.headers.get("authorization", "")}
        with httpx.stream("POST", self.upstream + self.path.removeprefix("/v1"), content=body,
                          headers=headers, timeout=120) as reply:
            self.send_response(reply.status_code)
            self.send_header("content-type", reply.headers.get("content-type", "text/event-stream"))
            self.end_headers()
            for chunk in reply.iter_raw():
                self.recorded.append(chunk)
                self.wfile.write(chunk)
                self.wfile.flush()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def proxy(endpoint: Endpoint) -> Iterator[tuple[str, list[bytes]]]:
    handler = type("Proxy", (_RecordingProxy,), {"upstream": endpoint.url, "recorded": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler.recorded
    server.shutdown()
    thread.join()


READ_FILE = {"type": "function", "function": {
    "name": "read_file", "description": "Read a text file in the workspace.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                   "required": ["path"]}}}


@pytest.mark.parametrize("tools", [False, True], ids=["text", "tool_call"])
def test_a_recorded_stream_replays_into_the_sdks_turn(
    tmp_path: Path, endpoint: Endpoint, proxy: tuple[str, list[bytes]], tools: bool
) -> None:
    """The same stream through neocode replay and the openai SDK"""
    url, recorded = proxy
    extra: dict[str, Any] = {}
    if tools:
        extra = {"tools": [READ_FILE],
                 "tool_choice": {"type": "function", "function": {"name": "read_file"}}}
    client = openai.OpenAI(base_url=url, api_key=endpoint.api_key)
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    for chunk in client.chat.completions.create(
        model="smollm2", stream=True, max_tokens=60,
        messages=[{"role": "user", "content": "Read a.py, or say hi."}], **extra,
    ):
        state.handle_chunk(chunk)
    sdk = state.current_completion_snapshot.choices[0]  # no parsing: "length" is fine here
    recording = tmp_path / "llama.sse"
    recording.write_bytes(b"".join(recorded))

    replay = Neocode(tmp_path, url)("replay", str(recording), "--json")
    assert replay.code == 0, replay.err
    ours = json.loads(replay.out)
    assert ours["error"] is None
    assert ours["text"] == (sdk.message.content or "")
    assert ours["finish_reason"] == sdk.finish_reason
    sdk_calls = sdk.message.tool_calls or []
    assert [c["arguments"] for c in ours["tool_calls"]] == [c.function.arguments for c in sdk_calls]
    # llama.cpp repeats the name in every fragment and the SDK concatenates them all
    # ("read_fileread_file..."); the first name is the tool's. LiteLLM sends it once.
    for call, sdk_call in zip(ours["tool_calls"], sdk_calls, strict=True):
        repeats = len(sdk_call.function.name) // len(call["name"])
        assert sdk_call.function.name == call["name"] * repeats
    assert bool(ours["tool_calls"]) == tools


def test_a_prompt_larger_than_the_context(neocode: Neocode) -> None:
    """A prompt over the context: context_overflow, says /compact"""
    run = neocode("-p", "word " * 6000, "--output-format", "json")
    assert run.code == 1
    assert_clean(run)
    error = run.json()["error"]
    assert error["kind"] == "context_overflow" and "/compact" in error["message"]


def test_null_content_after_a_tool_call(neocode: Neocode, endpoint: Endpoint) -> None:
    """Tool-call content null: refused (HTTP 500; through LiteLLM an empty reply)"""
    (neocode.workspace / "notes.txt").write_text("The secret word is pelican.\n")
    run = neocode("-p", "Read notes.txt.", "--output-format", "json", NEOCODE_MAX_RETRIES="0",
                  NEOCODE_OPENAI_COMPAT=f"{FORCED_READ},tool_call_content=null")
    error = run.json()["error"]
    assert run.code == 1
    if endpoint.name == "litellm":  # the failure reaches neocode as an empty 200
        assert error["message"].startswith("the server returned an empty response")
        return
    assert "HTTP 500" in error["message"] and "\n" not in error["message"]
    assert len(error["message"]) < 300


def test_without_a_named_tool_choice_tools_are_ignored(neocode: Neocode) -> None:
    """Default options: the server answers in text, never calls a tool"""
    (neocode.workspace / "notes.txt").write_text("The secret word is pelican.\n")
    run = neocode("-p", "Use the read_file tool to read notes.txt.", "--output-format", "json")
    assert run.code == 0, run.err
    assert run.json()["tool_calls"] == [] and run.json()["error"] is None
