"""A line that is not a JSON-RPC message gets a JSON-RPC error, and the agent goes on:
one bad line from an editor (or anything that can write to the agent's stdin) must not end
``neocode acp`` and every session in it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from acp import text_block

from tests.support.acp_editor import agent_env
from tests.support.acp_raw import RawAgent, start_raw
from tests.support.dialects import Dialect
from tests.support.waits import PATIENCE

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
BAD_LINES: list[tuple[bytes, int]] = [
    (b"[]", INVALID_REQUEST),
    (b"5", INVALID_REQUEST),
    (b'"x"', INVALID_REQUEST),
    (b"null", INVALID_REQUEST),
    (b"true", INVALID_REQUEST),
    (b'[{"jsonrpc": "2.0", "id": 1, "method": "initialize"}]', INVALID_REQUEST),
    (b"{}", INVALID_REQUEST),
    (b'{"jsonrpc": "2.0"}', INVALID_REQUEST),
    (b'{"jsonrpc": "2.0", "id": [1], "result": 1}', INVALID_REQUEST),
    (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "initialize"}', INVALID_REQUEST),
    (b'{"jsonrpc": "2.0", "id": 0, "error": "no"}', INVALID_REQUEST),
    (b'{"jsonrpc": "2.0", "method": 5}', INVALID_REQUEST),
    (b'{"jsonrpc": "2.0", "method": "session/cancel", "params": 5}', INVALID_REQUEST),
    (b'{"id": 1, "method": "initialize"}', INVALID_REQUEST),
    (b"{", PARSE_ERROR),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "initialize"', PARSE_ERROR),
    (b"\xff\xfe{}", PARSE_ERROR),
    (b'{"jsonrpc": "2.0", "method": "x\xc3"}', PARSE_ERROR),
    (b'{"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "\\ud800"}}',
     PARSE_ERROR),
    (b"[" * 100_000, PARSE_ERROR),
    (b"NaN garbage \x00\x01", PARSE_ERROR),
]


async def still_answers(agent: RawAgent, workspace: Path) -> None:
    """initialize, session/new and a prompt, each answered as if nothing had happened."""
    init = await agent.request("initialize", {"protocolVersion": 1})
    assert init["result"]["agentInfo"]["name"] == "neocode"
    new = await agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})
    answer = await agent.request("session/prompt", {
        "sessionId": new["result"]["sessionId"],
        "prompt": [text_block("hi").model_dump(by_alias=True, exclude_none=True)]})
    assert answer["result"]["stopReason"] == "end_turn"


async def finish(agent: RawAgent) -> str:
    assert agent.process.stdin is not None
    agent.process.stdin.close()
    _, err = await asyncio.wait_for(agent.process.communicate(), PATIENCE)
    assert agent.process.returncode == 0
    return err.decode()


async def test_bad_first_lines_get_errors_and_the_agent_goes_on(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("Still here.")
    agent = RawAgent(await start_raw(agent_env(model.server.url, home), workspace))
    for line in (b"[]", b"5", b'"x"', b"null", b"\xff{}"):
        await agent.send(line + b"\n")
        error = await agent.reply(lambda reply: "error" in reply)
        assert error["id"] is None
        assert error["error"]["code"] == (PARSE_ERROR if line == b"\xff{}" else INVALID_REQUEST)
    await still_answers(agent, workspace)
    err = await finish(agent)
    assert "Traceback" not in err and "bad JSON-RPC message: a message must be a JSON object" in err


async def test_a_bad_request_whose_id_can_be_read_is_answered_under_it(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("Still here.")
    agent = RawAgent(await start_raw(agent_env(model.server.url, home), workspace))
    await agent.send(b'{"jsonrpc": "2.0", "id": "mine", "method": 7}\n')
    error = await agent.reply(lambda reply: "error" in reply)
    assert error["id"] == "mine" and error["error"]["code"] == INVALID_REQUEST
    assert error["error"]["data"] == "method must be a string"
    await still_answers(agent, workspace)
    await finish(agent)


async def test_bad_lines_between_the_requests_of_a_live_session_leave_it_working(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("First answer.")
    model.reply("Second answer.")
    agent = RawAgent(await start_raw(agent_env(model.server.url, home), workspace))
    await agent.request("initialize", {"protocolVersion": 1})
    new = await agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})
    sid = new["result"]["sessionId"]
    prompt = [text_block("hi").model_dump(by_alias=True, exclude_none=True)]
    first = await agent.request("session/prompt", {"sessionId": sid, "prompt": prompt})
    assert first["result"]["stopReason"] == "end_turn"
    for line, _ in BAD_LINES:
        await agent.send(line + b"\n")
    errors = [await agent.reply(lambda reply: "error" in reply) for _ in BAD_LINES]
    assert [e["error"]["code"] for e in errors] == [code for _, code in BAD_LINES]
    second = await agent.request("session/prompt", {"sessionId": sid, "prompt": prompt})
    assert second["result"]["stopReason"] == "end_turn"
    assert [m["content"] for m in model.request(2)["messages"] if m["role"] == "assistant"] == [
        "First answer."]
    await finish(agent)


async def test_a_line_over_the_limit_is_skipped_without_being_kept(
    model: Dialect, workspace: Path, home: Path
) -> None:
    from neocode_tui.cli.acp.wire import MAX_LINE_BYTES

    model.reply("Still here.")
    agent = RawAgent(await start_raw(agent_env(model.server.url, home), workspace))
    piece = b'{"jsonrpc": "2.0", "method": "session/cancel", "params": {"x": "' + b"a" * (1 << 20)
    writing = asyncio.create_task(send_pieces(agent, piece, MAX_LINE_BYTES // len(piece) + 2))
    error = await agent.reply(lambda reply: "error" in reply)
    await writing
    assert error["id"] is None and error["error"]["code"] == INVALID_REQUEST
    assert error["error"]["data"] == f"a message over {MAX_LINE_BYTES} bytes"
    await still_answers(agent, workspace)
    await finish(agent)


async def send_pieces(agent: RawAgent, piece: bytes, count: int) -> None:
    for _ in range(count):
        await agent.send(piece)
    await agent.send(b"\n")


async def test_a_last_line_without_its_newline_is_still_read(
    model: Dialect, workspace: Path, home: Path
) -> None:
    agent = RawAgent(await start_raw(agent_env(model.server.url, home), workspace))
    await agent.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                 "params": {"protocolVersion": 1}}).encode())
    assert agent.process.stdin is not None
    agent.process.stdin.close()
    out, _ = await asyncio.wait_for(agent.process.communicate(), PATIENCE)
    assert json.loads(out)["result"]["agentInfo"]["name"] == "neocode"


async def test_a_malformed_answer_to_a_permission_request_is_a_no(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("", [("w1", "write_file", json.dumps({"path": "new.txt", "content": "x\n"}))])
    model.reply("Not written.")
    agent = RawAgent(await start_raw(agent_env(model.server.url, home), workspace))
    await agent.request("initialize", {"protocolVersion": 1})
    new = await agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})
    prompt = [text_block("write it").model_dump(by_alias=True, exclude_none=True)]
    await agent.send(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "session/prompt", "params": {
        "sessionId": new["result"]["sessionId"], "prompt": prompt}}).encode() + b"\n")
    question = await agent.question("session/request_permission")
    await agent.send(json.dumps({"jsonrpc": "2.0", "id": question["id"],
                                 "result": {"outcome": "bogus"}}).encode() + b"\n")
    answer = await agent.reply(lambda reply: reply.get("id") == 99)
    assert answer["result"]["stopReason"] == "end_turn"
    assert not (workspace / "new.txt").exists()
    assert model.tool_results(2)["w1"] == "the user denied this call: the editor did not answer"
    await finish(agent)


async def test_a_malformed_session_delete_is_refused_and_one_sent_as_input_ends_is_still_answered(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("Still here.")
    agent = RawAgent(await start_raw(agent_env(model.server.url, home), workspace))
    for params in ({}, {"sessionId": 5}, {"sessionId": None}):
        sent = {"jsonrpc": "2.0", "id": "bad", "method": "session/delete", "params": params}
        await agent.send(json.dumps(sent).encode() + b"\n")
        error = await agent.reply(lambda reply: reply.get("id") == "bad")
        assert error["error"] == {"code": -32602, "message": "session/delete needs a sessionId, a string"}
    await still_answers(agent, workspace)
    # The last request, then the end of input: the answer goes out before the agent exits.
    last = {"jsonrpc": "2.0", "id": "last", "method": "session/delete", "params": {"sessionId": "gone"}}
    await agent.send(json.dumps(last).encode() + b"\n")
    assert agent.process.stdin is not None and agent.process.stdout is not None
    agent.process.stdin.close()
    out, err = await asyncio.wait_for(agent.process.communicate(), PATIENCE)
    answers = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert {"jsonrpc": "2.0", "id": "last", "result": {}} in answers
    assert agent.process.returncode == 0 and "Traceback" not in err.decode()
