"""Session files written by the real Claude Code and Codex (npm, pinned in tests/node), run
headless against the loopback model server: what ``neocode import`` meets on a user's disk."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from tests.support.claude_sets import NODE_MODULES
from tests.support.model_server import ModelServer, Response
from tests.support.other_agents import png
from tests.support.sse import anthropic_turn, responses_turn
from tests.support.waits import PATIENCE

CLAUDE = NODE_MODULES / "@anthropic-ai" / "claude-code-linux-x64" / "claude"
"""The native binary of the platform package (its installer, which links it, does not run here)."""
CODEX = NODE_MODULES / "@openai" / "codex-linux-x64" / "vendor" / "x86_64-unknown-linux-musl" / "bin" / "codex"
PROMPT = "What is in this folder?"
ANSWER = "The folder holds notes.txt and nothing else."
SECRET = "sk-ant-real-agent-SECRET-41c7"


def _prompt_with_picture() -> bytes:
    """The prompt as a stream-json user message with a screenshot, as an SDK program sends one."""
    picture = {"type": "base64", "media_type": "image/png", "data": png()}
    message = {"role": "user", "content": [{"type": "text", "text": PROMPT}, {"type": "image", "source": picture}]}
    return json.dumps({"type": "user", "message": message}).encode() + b"\n"


def _has_result(body: dict[str, Any]) -> bool:
    return any(isinstance(message.get("content"), list)
               and any(block.get("type") == "tool_result" for block in message["content"])
               for message in body.get("messages", []))


def _claude_turn(body: dict[str, Any]) -> Response:
    """One Bash call first, then the answer once its result comes back."""
    if _has_result(body):
        return Response(body=anthropic_turn(ANSWER, usage=(120, 9), cache=(40, 0), message_id="msg_02answer"))
    listing = json.dumps({"command": "ls", "description": "List files"})
    return Response(body=anthropic_turn("Let me look.", [("Bash", listing)], call_ids=["toolu_01ls"],
                                        usage=(100, 20), message_id="msg_01look"))


async def _run_claude(folder: Path) -> Path:
    home, work = folder / "home", folder / "project"
    home.mkdir()
    work.mkdir()
    (work / "notes.txt").write_text(f"KEY={SECRET}\n")
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "ANTHROPIC_API_KEY": SECRET,
           "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    async with ModelServer() as server:
        server.enqueue(_claude_turn, _claude_turn)
        process = await asyncio.create_subprocess_exec(
            str(CLAUDE), "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
            "--allowedTools", "Bash(ls)", cwd=work, env={**env, "ANTHROPIC_BASE_URL": server.url},
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(process.communicate(_prompt_with_picture()), PATIENCE * 4)
    result = json.loads(out.splitlines()[-1])
    assert process.returncode == 0 and result["result"] == ANSWER, err.decode()
    assert len(server.requests) == 2
    [written] = (home / ".claude" / "projects").glob(f"*/{result['session_id']}.jsonl")
    return written


def claude_code_session(folder: Path) -> Path:
    """Claude Code's own file of one prompt with a picture, answered after a Bash ``ls`` whose output holds a key."""
    return asyncio.run(_run_claude(folder))


def _codex_turn(body: dict[str, Any]) -> Response:
    """One ``exec_command`` of ``ls`` first, then the answer once its output comes back."""
    if any(item.get("type") == "function_call_output" for item in body["input"]):
        return Response(body=responses_turn(ANSWER, usage=(140, 11), cached=60, response_id="resp_02"))
    return Response(body=responses_turn("Let me look.", [("call_ls", "exec_command", json.dumps({"cmd": "ls"}))],
                                        usage=(90, 15), response_id="resp_01"))


def _codex_config(url: str) -> str:
    """A model provider on the loopback server speaking the Responses API; nothing else reached."""
    return (f'model = "test-model"\nmodel_provider = "loopback"\ncheck_for_update_on_startup = false\n'
            f'[analytics]\nenabled = false\n[feedback]\nenabled = false\n'
            f'[model_providers.loopback]\nname = "loopback"\nbase_url = "{url}/v1"\n'
            f'wire_api = "responses"\nenv_key = "LOOPBACK_API_KEY"\n')


async def _run_codex(folder: Path) -> Path:
    home, work = folder / "codex-home", folder / "project"
    home.mkdir()
    work.mkdir()
    (work / "notes.txt").write_text(f"KEY={SECRET}\n")
    async with ModelServer() as server:
        server.enqueue(_codex_turn, _codex_turn)
        (home / "config.toml").write_text(_codex_config(server.url))
        process = await asyncio.create_subprocess_exec(
            str(CODEX), "exec", "--skip-git-repo-check", "--sandbox", "danger-full-access", PROMPT,
            cwd=work, env={"PATH": os.environ["PATH"], "HOME": str(home), "CODEX_HOME": str(home),
                           "LOOPBACK_API_KEY": SECRET},
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(process.communicate(), PATIENCE * 4)
    assert process.returncode == 0 and out.decode().strip() == ANSWER, err.decode()
    assert [request.path for request in server.requests] == ["/v1/responses"] * 2
    [written] = (home / "sessions").glob("*/*/*/rollout-*.jsonl")
    return written


def codex_rollout(folder: Path) -> Path:
    """Codex's own rollout of one prompt answered after an ``ls`` whose output holds a key."""
    return asyncio.run(_run_codex(folder))
