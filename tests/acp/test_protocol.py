"""The wire itself: stdout carries JSON-RPC only, and bad requests get plain-word errors."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from acp import RequestError, image_block, text_block

from tests.support.acp_editor import agent_env, editor
from tests.support.acp_raw import RawAgent, start_raw
from tests.support.dialects import API_KEY, Dialect
from tests.support.waits import PATIENCE


async def test_stdout_is_protocol_only_and_errors_are_plain_words(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("Hello from the model.")
    process = await start_raw(agent_env(model.server.url, home), workspace)
    agent = RawAgent(process)

    init = await agent.request("initialize", {"protocolVersion": 1})
    assert init["result"]["agentInfo"]["name"] == "neocode"
    bad_cwd = await agent.request("session/new", {"cwd": "relative/folder", "mcpServers": []})
    assert bad_cwd["error"]["message"] == "cwd must be an absolute path to a folder: 'relative/folder'"
    no_session = await agent.request(
        "session/prompt", {"sessionId": "nope", "prompt": [{"type": "text", "text": "hi"}]})
    assert "no open session 'nope'" in no_session["error"]["message"]
    new = await agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})
    sid = new["result"]["sessionId"]
    bad_mode = await agent.request("session/set_mode", {"sessionId": sid, "modeId": "yolo"})
    assert bad_mode["error"]["message"] == "no mode 'yolo': the modes are ask, auto-edit, full-auto, plan"
    image = image_block("aGVsbG8=", "image/png").model_dump(by_alias=True, exclude_none=True)
    refused = await agent.request("session/prompt", {"sessionId": sid, "prompt": [image]})
    assert refused["error"]["message"] == ("image 1 is not an image that can be read "
                                           "(only PNG, JPEG, GIF and WebP are)")
    answer = await agent.request("session/prompt", {"sessionId": sid, "prompt": [
        text_block("hi").model_dump(by_alias=True, exclude_none=True)]})
    assert answer["result"]["stopReason"] == "end_turn"

    assert process.stdin is not None
    process.stdin.close()  # the editor quits
    rest, err = await asyncio.wait_for(process.communicate(), PATIENCE)
    assert process.returncode == 0
    for line in agent.lines + rest.splitlines(keepends=True):
        assert json.loads(line)["jsonrpc"] == "2.0"
    assert "Traceback" not in err.decode() and API_KEY not in err.decode()
    assert API_KEY not in b"".join(agent.lines).decode()


async def test_embedded_files_reach_the_model_as_context(
    model: Dialect, workspace: Path, home: Path
) -> None:
    model.reply("It returns hello.")
    resource = {"type": "resource", "resource": {
        "uri": f"file://{workspace}/app.py", "mimeType": "text/x-python",
        "text": (workspace / "app.py").read_text()}}
    async with editor(agent_env(model.server.url, home), workspace) as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        await ed.conn.prompt(session_id=session.session_id,
                             prompt=[text_block("what does this return?"), resource])
    [user] = [m for m in model.request(1)["messages"] if m["role"] == "user"]
    assert user["content"].startswith("what does this return?")
    assert f'<context ref="file://{workspace}/app.py">' in user["content"]
    assert "return 'hello'" in user["content"]


async def test_without_a_key_new_sessions_say_how_to_set_one(
    model: Dialect, workspace: Path, home: Path
) -> None:
    """The offline model fallen back to is for the app: an editor needs a real one."""
    env = agent_env(model.server.url, home, NEOCODE_PROVIDER="", OPENAI_API_KEY="")
    async with editor(env, workspace) as ed:
        with pytest.raises(RequestError) as refused:
            await ed.conn.new_session(cwd=str(workspace))
        with pytest.raises(RequestError) as unauthenticated:
            await ed.conn.authenticate(method_id="api-key")
    for error in (refused.value, unauthenticated.value):
        assert error.code == RequestError.auth_required().code
        assert str(error).startswith("no API key: set OPENAI_API_KEY or ANTHROPIC_API_KEY")


async def test_the_editor_is_told_which_variables_carry_the_key_and_a_set_one_authenticates(
    model: Dialect, workspace: Path, home: Path
) -> None:
    async with editor(agent_env(model.server.url, home), workspace) as ed:
        method = next(method for method in ed.initialized.auth_methods if method.id == "api-key")
        assert await ed.conn.authenticate(method_id="api-key") is not None
        with pytest.raises(RequestError) as unknown:
            await ed.conn.authenticate(method_id="oauth")
    assert method.type == "env_var" and method.id == "api-key"
    assert [var.name for var in method.vars] == ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]
    assert all(var.secret and var.optional for var in method.vars)
    assert unknown.value.code == RequestError.invalid_params().code


async def test_bad_flags_exit_2_before_speaking_the_protocol(
    model: Dialect, workspace: Path, home: Path
) -> None:
    process = await start_raw(agent_env(model.server.url, home), workspace, "--max-turns", "0")
    out, err = await asyncio.wait_for(process.communicate(), PATIENCE)
    assert process.returncode == 2 and out == b""
    assert "--max-turns: 0: Input should be greater than or equal to 1" in err.decode()


def test_setting_flags_work_before_and_after_acp() -> None:
    from neocode_tui.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["--model", "before", "acp"]).model == "before"
    after = parser.parse_args(["acp", "--model", "after", "--trust"])
    assert (after.model, after.trust, after.command) == ("after", True, "acp")


def test_the_acp_front_end_does_not_import_textual() -> None:
    import subprocess
    import sys

    code = "import sys, neocode_tui.cli.acp.agent; print('textual' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False"
