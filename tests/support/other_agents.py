"""Session files as Claude Code and Codex write them (their documented line shapes: one JSON
event a line), made here for the import tests, with a picture made by Pillow."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

from PIL import Image

CLAUDE_SESSION = "4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f"


def png() -> str:
    picture = Image.new("RGB", (4, 3), (200, 30, 30))
    out = io.BytesIO()
    picture.save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


def _event(kind: str, number: int, message: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"parentUuid": f"uuid-{number - 1}" if number > 1 else None, "isSidechain": False,
            "userType": "external", "cwd": "/home/someone/project", "sessionId": CLAUDE_SESSION,
            "version": "2.1.4", "gitBranch": "main", "type": kind, "message": message,
            "uuid": f"uuid-{number}", "timestamp": f"2026-11-02T10:00:{number:02d}.000Z", **more}


def _usage(fresh: int, read: int, out: int) -> dict[str, int]:
    return {"input_tokens": fresh, "cache_creation_input_tokens": 0, "cache_read_input_tokens": read,
            "output_tokens": out}


def claude_code_file(folder: Path, secret: str) -> Path:
    """A session of two prompts: the first with a screenshot, answered after one Bash call
    (whose output carries ``secret``), the response written one line per block as Claude
    Code writes it; a subagent's line, a summary, hook progress and a torn line besides."""
    response = {"id": "msg_01A", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                "stop_reason": None, "usage": _usage(120, 2_000, 40)}
    lines: list[Any] = [
        {"type": "summary", "summary": "Listing the project", "leafUuid": "uuid-6"},
        _event("user", 1, {"role": "user", "content": [
            {"type": "text", "text": "what is in this folder? here is what I see"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png()}}]}),
        _event("assistant", 2, {**response, "content": [
            {"type": "thinking", "thinking": "I should list the files.", "signature": "c2lnbmF0dXJl"}]},
            requestId="req_01"),
        _event("assistant", 3, {**response, "content": [{"type": "text", "text": "Let me look."}]},
               requestId="req_01"),
        _event("assistant", 4, {**response, "stop_reason": "tool_use", "content": [
            {"type": "tool_use", "id": "toolu_01Bash", "name": "Bash",
             "input": {"command": "ls", "description": "List files"}}]}, requestId="req_01"),
        _event("user", 5, {"role": "user", "content": [
            {"tool_use_id": "toolu_01Bash", "type": "tool_result",
             "content": f"app.py\nREADME.md\ntoken={secret}", "is_error": False}]},
            toolUseResult={"stdout": "app.py\nREADME.md", "stderr": "", "interrupted": False}),
        _event("assistant", 6, {"id": "msg_01B", "type": "message", "role": "assistant",
                                "model": "claude-sonnet-4-5-20250929", "stop_reason": "end_turn",
                                "usage": _usage(60, 2_100, 25),
                                "content": [{"type": "text", "text": "It holds app.py and a README."}]}),
        {**_event("assistant", 7, {"id": "msg_side", "role": "assistant", "model": "claude-haiku-4-5",
                                   "content": [{"type": "text", "text": "subagent chatter"}]}), "isSidechain": True},
        {"type": "progress", "data": {"type": "hook_progress", "hookEvent": "PostToolUse"}, "uuid": "p1"},
        _event("user", 8, {"role": "user", "content": "thanks, what does app.py print?"}),
        _event("assistant", 9, {"id": "msg_01C", "type": "message", "role": "assistant",
                                "model": "claude-sonnet-4-5-20250929", "stop_reason": "end_turn",
                                "usage": _usage(30, 2_200, 10),
                                "content": [{"type": "text", "text": "It prints hello."}]}),
    ]
    path = folder / f"{CLAUDE_SESSION}.jsonl"
    text = "\n".join(json.dumps(line) for line in lines) + '\n{"type": "user", "message": {"role": "us\n'
    path.write_text(text)
    return path


def _rollout(kind: str, second: int, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": f"2026-11-02T11:00:{second:02d}.000Z", "type": kind, "payload": payload}


def codex_file(folder: Path, secret: str) -> Path:
    """A rollout of one prompt: Codex's own context messages, a reasoning summary, a shell
    call whose output (wrapped as Codex wraps it) carries ``secret``, an apply_patch
    custom call, the answer, and the token counts after each request."""
    call_output = json.dumps({"output": f"app.py\nKEY={secret}\n",
                              "metadata": {"exit_code": 0, "duration_seconds": 0.1}})
    lines = [
        _rollout("session_meta", 0, {"id": "0199a0b1-7c2d-7e3f-8a4b-5c6d7e8f9a0b", "timestamp": "2026-11-02T11:00:00Z",
                                     "cwd": "/home/someone/project", "originator": "codex_cli_rs",
                                     "cli_version": "0.46.0", "instructions": None, "model_provider": "openai"}),
        _rollout("response_item", 1, {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<environment_context>\n  <cwd>/home/someone/project</cwd>\n"
                                           "</environment_context>"}]}),
        _rollout("turn_context", 1, {"cwd": "/home/someone/project", "approval_policy": "on-request",
                                     "sandbox_policy": {"mode": "workspace-write"}, "model": "gpt-5-codex",
                                     "effort": "medium", "summary": "auto"}),
        _rollout("response_item", 2, {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "add a docstring to app.py"}]}),
        _rollout("event_msg", 2, {"type": "user_message", "message": "add a docstring to app.py", "images": []}),
        _rollout("response_item", 3, {"type": "reasoning", "summary": [
            {"type": "summary_text", "text": "**Looking at the file first**"}], "content": None,
            "encrypted_content": "gAAAAB..."}),
        _rollout("response_item", 4, {"type": "function_call", "name": "shell",
                                      "arguments": json.dumps({"command": ["bash", "-lc", "ls"], "workdir": "."}),
                                      "call_id": "call_ls1"}),
        _rollout("response_item", 5, {"type": "function_call_output", "call_id": "call_ls1", "output": call_output}),
        _rollout("event_msg", 5, {"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": 3_000, "cached_input_tokens": 1_000, "output_tokens": 200,
                                  "reasoning_output_tokens": 64, "total_tokens": 3_200},
            "last_token_usage": {"input_tokens": 3_000, "cached_input_tokens": 1_000, "output_tokens": 200,
                                 "reasoning_output_tokens": 64, "total_tokens": 3_200},
            "model_context_window": 272_000}, "rate_limits": None}),
        _rollout("response_item", 6, {"type": "custom_tool_call", "status": "completed", "call_id": "call_patch1",
                                      "name": "apply_patch",
                                      "input": "*** Begin Patch\n*** Update File: app.py\n+\"\"\"Greets.\"\"\"\n"
                                               "*** End Patch"}),
        _rollout("response_item", 7, {"type": "custom_tool_call_output", "call_id": "call_patch1",
                                      "output": "Success. Updated the following files:\nM app.py\n"}),
        _rollout("response_item", 8, {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "Added a module docstring to app.py."}]}),
        _rollout("event_msg", 8, {"type": "agent_message", "message": "Added a module docstring to app.py."}),
        _rollout("event_msg", 8, {"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": 6_500, "cached_input_tokens": 3_000, "output_tokens": 320,
                                  "reasoning_output_tokens": 64, "total_tokens": 6_820},
            "last_token_usage": {"input_tokens": 3_500, "cached_input_tokens": 2_000, "output_tokens": 120,
                                 "reasoning_output_tokens": 0, "total_tokens": 3_620},
            "model_context_window": 272_000}, "rate_limits": None}),
    ]
    path = folder / "rollout-2026-11-02T11-00-00-0199a0b1-7c2d-7e3f-8a4b-5c6d7e8f9a0b.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path
