"""A saved session as an ATIF trajectory (the Agent Trajectory Interchange Format, v1.8),
the file benchmark harnesses such as Harbor keep of each run.

Built from the session file's records in the order they were written, so the trajectory
holds the whole history, what a compaction summarised included: a user prompt is a
``user`` step, NeoCode's notes to the model and compactions are ``system`` steps, and each
model response is an ``agent`` step with its tool calls, their results as its observation,
its tokens and its cost. The field names are ATIF's own; nothing in a session file is a
key (they are scrubbed before they are written), so nothing here needs scrubbing again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from neocode_tui import __version__
from neocode_tui.agent.context import request_cost
from neocode_tui.agent.store import SessionInfo, images_dir, session_records
from neocode_tui.chat import Message
from neocode_tui.events import Usage

SCHEMA_VERSION = "ATIF-v1.8"
AGENT_NAME = "neocode"
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
"""The image types ATIF names; another type is said in words."""


@dataclass
class _Steps:
    """The trajectory as it is built, record after record."""

    model: str
    steps: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage | None = None
    """The next model response's tokens: the loop writes them just before it."""
    effort: str | None = None
    totals: dict[str, float] = field(default_factory=dict)
    priced: bool = True

    def add(self, step: dict[str, Any]) -> None:
        self.steps.append({"step_id": len(self.steps) + 1, **step})


def trajectory(info: SessionInfo) -> dict[str, Any]:
    """The session ``info`` names as an ATIF ``Trajectory`` (a JSON object)."""
    built = _Steps(model=info.model)
    provider = ""
    for record in session_records(info):
        kind = record.get("type")
        if kind == "session":
            provider = str(record.get("provider", ""))
        elif kind == "usage":
            built.usage = _usage(record.get("usage"))
        elif kind == "effort":
            effort = record.get("effort")
            built.effort = effort if isinstance(effort, str) and effort != "off" else None
        elif kind == "model" and isinstance(record.get("model"), str):
            built.model = record["model"]
        elif kind == "compaction":
            built.add({"source": "system", "message": "The conversation so far was summarised for the model "
                       "(a compaction); the steps above stay as they were."})
        elif kind == "message":
            _message(built, record)
    document: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "session_id": info.id,
        "agent": {"name": AGENT_NAME, "version": __version__, "model_name": info.model or None,
                  "extra": {"provider": provider} if provider else None},
        "steps": built.steps,
        "final_metrics": _final(built),
    }
    if info.title:
        document["extra"] = {"title": info.title, "workspace": info.workspace}
    cleaned: dict[str, Any] = _without_nulls(document)
    return cleaned


def _message(built: _Steps, record: dict[str, Any]) -> None:
    try:
        message = Message.model_validate(record.get("message"))
    except ValueError:
        return  # a damaged line: the session's own loading skips it too
    at = record.get("at") if isinstance(record.get("at"), str) else None
    if message.role == "tool":
        _result(built, message)
    elif message.role == "user":
        built.add({"source": "system" if message.notice else "user", "timestamp": at,
                   "message": _content(message)})
    else:
        built.add(_agent_step(built, message, at))
        built.usage = None


def _agent_step(built: _Steps, message: Message, at: str | None) -> dict[str, Any]:
    model = message.model or built.model
    step: dict[str, Any] = {
        "source": "agent", "timestamp": at, "model_name": model or None,
        "reasoning_effort": built.effort, "message": message.content,
        "reasoning_content": message.reasoning or None,
    }
    if message.tool_calls:
        step["tool_calls"] = [_call(call.id, call.name, call.arguments) for call in message.tool_calls]
    if built.usage is not None:
        step["metrics"] = _metrics(built, built.usage, model)
    if message.ended is not None:
        step["extra"] = {"ended": message.ended.reason, "ended_message": message.ended.message or None}
    return step


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """ATIF's arguments are an object; arguments that are not one (a model's broken JSON)
    are kept as they came, in ``extra``."""
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        return {"tool_call_id": call_id, "function_name": name, "arguments": parsed}
    return {"tool_call_id": call_id, "function_name": name, "arguments": {}, "extra": {"raw_arguments": arguments}}


def _result(built: _Steps, message: Message) -> None:
    """A tool result joins the observation of the agent step that made its call."""
    owner = next((step for step in reversed(built.steps) if step["source"] == "agent"), None)
    if owner is None:
        return
    called = {call["tool_call_id"] for call in owner.get("tool_calls", [])}
    source = message.tool_call_id if message.tool_call_id in called else None
    results = owner.setdefault("observation", {"results": []})["results"]
    results.append({"source_call_id": source, "content": _content(message)})


def _content(message: Message) -> str | list[dict[str, Any]]:
    """Text, or text and images (each a file of the session's image folder)."""
    if not message.images:
        return message.content
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}] if message.content else []
    for image in message.images:
        if image.media_type in IMAGE_TYPES:
            path = str(images_dir() / image.sha256)
            parts.append({"type": "image", "source": {"media_type": image.media_type, "path": path}})
        else:
            parts.append({"type": "text", "text": f"[an image of type {image.media_type}]"})
    return parts


def _usage(raw: object) -> Usage | None:
    try:
        return Usage.model_validate(raw)
    except ValueError:
        return None


def _metrics(built: _Steps, usage: Usage, model: str) -> dict[str, Any]:
    cost = request_cost(usage, model) if model else None
    built.priced = built.priced and cost is not None
    for name, value in (("prompt", usage.input_tokens), ("completion", usage.output_tokens),
                        ("cached", usage.cached_input_tokens), ("cost", float(cost or Decimal(0)))):
        built.totals[name] = built.totals.get(name, 0) + (value or 0)
    extra = {"reasoning_tokens": usage.reasoning_tokens or None,
             "cache_creation_input_tokens": usage.cache_creation_input_tokens or None}
    return {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
            "cached_tokens": usage.cached_input_tokens, "cost_usd": float(cost) if cost is not None else None,
            "extra": extra if any(extra.values()) else None}


def _final(built: _Steps) -> dict[str, Any]:
    totals = built.totals
    return {
        "total_prompt_tokens": int(totals["prompt"]) if totals else None,
        "total_completion_tokens": int(totals["completion"]) if totals else None,
        "total_cached_tokens": int(totals["cached"]) if totals else None,
        "total_cost_usd": round(totals["cost"], 6) if totals and built.priced else None,
        "total_steps": len(built.steps),
    }


def _without_nulls(value: Any) -> Any:
    """The document without unset fields, as ATIF writers leave them out."""
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value]
    return value
