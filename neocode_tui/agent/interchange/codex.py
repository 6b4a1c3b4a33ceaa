"""A Codex session (a rollout, ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) as messages.

Every line is ``{"timestamp", "type", "payload"}``: ``session_meta`` first, then
``turn_context`` (the model of each turn), ``response_item`` (what went to and came from
the model: ``message``, ``reasoning``, ``function_call`` and ``custom_tool_call`` with their
``*_output``) and ``event_msg`` (Codex's own view of the same turn, of which only the
``token_count`` totals are read here). User messages that Codex writes itself (the
folder's instructions, the environment) are kept as notes to the model, not as prompts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from neocode_tui.agent.interchange.transcript import Imported, Scrub, json_lines, number
from neocode_tui.chat import Message
from neocode_tui.events import Usage

SOURCE = "Codex"
INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<permissions")
"""How the user messages Codex adds itself begin."""


def looks_like(first: dict[str, Any]) -> bool:
    return first.get("type") == "session_meta" and isinstance(first.get("payload"), dict)


def read_codex(path: Path, scrub: Scrub) -> Imported:
    imported = Imported(SOURCE)
    model = ""
    for record in json_lines(path, imported):
        payload = record.get("payload")
        if not isinstance(payload, dict):
            imported.skipped += 1
        elif record.get("type") == "turn_context":
            model = str(payload.get("model") or model)
            imported.model = model or imported.model
        elif record.get("type") == "response_item":
            _item(imported, payload, model, scrub)
        elif record.get("type") == "event_msg" and payload.get("type") == "token_count":
            _totals(imported, payload.get("info"))
    return imported


def _item(imported: Imported, item: dict[str, Any], model: str, scrub: Scrub) -> None:
    kind = item.get("type")
    if kind == "message":
        _message(imported, item, model, scrub)
    elif kind == "reasoning":
        parts = _list(item.get("summary"))
        summary = [str(part.get("text", "")) for part in parts if isinstance(part, dict)]
        if any(summary):
            imported.said(imported.assistant(model), reasoning=scrub("\n".join(summary)))
    elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
        arguments = item.get("arguments") if kind == "function_call" else item.get("input", item.get("action", {}))
        imported.call(imported.assistant(model), str(item.get("call_id", "")), str(item.get("name", "shell")),
                      arguments if arguments is not None else {}, scrub)
    elif kind in ("function_call_output", "custom_tool_call_output"):
        text = _output(item.get("output"))
        imported.messages.append(Message(role="tool", tool_call_id=str(item.get("call_id", "")),
                                         content=scrub(text), status="ok"))


def _message(imported: Imported, item: dict[str, Any], model: str, scrub: Scrub) -> None:
    parts = _list(item.get("content"))
    text = "".join(str(part.get("text", "")) for part in parts if isinstance(part, dict)
                   and part.get("type") in ("input_text", "output_text", "text"))
    role = item.get("role")
    if role == "assistant":
        imported.said(imported.assistant(model), text=scrub(text))
    elif role == "user" and text.strip():
        injected = text.lstrip().startswith(INJECTED)
        imported.messages.append(Message(role="user", content=scrub(text), notice=injected))


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _output(raw: object) -> str:
    """A call's output: Codex wraps a command's in ``{"output": ..., "metadata": ...}``."""
    if not isinstance(raw, str):
        return json.dumps(raw, ensure_ascii=False) if raw is not None else ""
    try:
        wrapped = json.loads(raw)
    except ValueError:
        return raw
    if isinstance(wrapped, dict) and isinstance(wrapped.get("output"), str):
        return str(wrapped["output"])
    return raw


def _totals(imported: Imported, info: object) -> None:
    """The session's running totals: the last ``token_count`` holds them all."""
    if not isinstance(info, dict) or not isinstance(info.get("total_token_usage"), dict):
        return
    total = info["total_token_usage"]
    imported.usage = Usage(
        input_tokens=number(total.get("input_tokens")), output_tokens=number(total.get("output_tokens")),
        cached_input_tokens=number(total.get("cached_input_tokens")),
        cache_creation_input_tokens=number(total.get("cache_write_input_tokens")),
        reasoning_tokens=number(total.get("reasoning_output_tokens")),
    )
