"""A Claude Code session (``~/.claude/projects/<folder>/<session>.jsonl``) as messages.

Each line is one event: ``user`` lines carry a prompt (text, or content blocks with images)
or tool results (``tool_result`` blocks), ``assistant`` lines carry one API response's
content blocks (``text``, ``thinking``, ``tool_use``) and its ``usage``; Claude Code writes
one line per block of a response, all with the same ``message.id``, each repeating the
usage. Lines of a subagent (``isSidechain``) and of other types (``summary``, ``system``,
hook progress) are not part of the conversation and are left out.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from typing import Any

from neocode_tui.agent.images import ImageError, prepare
from neocode_tui.agent.interchange.transcript import Imported, Scrub, json_lines, number
from neocode_tui.chat import Image, Message
from neocode_tui.events import Usage

SOURCE = "Claude Code"


def looks_like(first: dict[str, Any]) -> bool:
    """Whether a first record is Claude Code's: its events carry a ``sessionId``."""
    return "sessionId" in first and first.get("type") in ("user", "assistant", "summary", "system")


def read_claude_code(path: Path, scrub: Scrub) -> Imported:
    imported = Imported(SOURCE)
    usage_by_response: dict[str, Usage] = {}
    for record in json_lines(path, imported):
        message = record.get("message")
        if record.get("isSidechain") or record.get("type") not in ("user", "assistant"):
            continue
        if not isinstance(message, dict):
            imported.skipped += 1
        elif record["type"] == "user":
            _user(imported, message, scrub, meta=bool(record.get("isMeta")))
        else:
            _assistant(imported, message, scrub, usage_by_response)
    for usage in usage_by_response.values():
        imported.usage = imported.usage + usage
    return imported


def _user(imported: Imported, message: dict[str, Any], scrub: Scrub, *, meta: bool) -> None:
    content = message.get("content")
    if isinstance(content, str):
        imported.messages.append(Message(role="user", content=scrub(content), notice=meta))
        return
    if not isinstance(content, list):
        imported.skipped += 1
        return
    texts: list[str] = []
    images: list[Image] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result":
            imported.messages.append(_result(block, scrub))
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(scrub(block["text"]))
        elif block.get("type") == "image":
            image = _image(block.get("source"))
            if image is None:
                texts.append("[an image that could not be read]")
            else:
                images.append(image)
    if texts or images:
        imported.messages.append(Message(role="user", content="\n".join(texts), images=images, notice=meta))


def _result(block: dict[str, Any], scrub: Scrub) -> Message:
    content = block.get("content")
    if isinstance(content, list):
        parts = [part.get("text", "") if part.get("type") == "text" else "[an image]"
                 for part in content if isinstance(part, dict)]
        content = "\n".join(parts)
    error = block.get("is_error") is True
    return Message(role="tool", tool_call_id=str(block.get("tool_use_id", "")), content=scrub(str(content or "")),
                   is_error=error, status="error" if error else "ok")


def _assistant(imported: Imported, message: dict[str, Any], scrub: Scrub,
               usage_by_response: dict[str, Usage]) -> None:
    model = str(message.get("model") or "")
    imported.model = model or imported.model
    response = str(message.get("id") or len(usage_by_response))
    usage = _usage(message.get("usage"))
    if usage is not None:
        usage_by_response[response] = usage  # each line of a response repeats it: the last wins
    for block in message.get("content") or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            imported.said(imported.assistant(model, response), text=scrub(block["text"]))
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            imported.said(imported.assistant(model, response), reasoning=scrub(block["thinking"]))
        elif kind == "tool_use":
            arguments = block.get("input") if isinstance(block.get("input"), dict) else {}
            imported.call(imported.assistant(model, response), str(block.get("id", "")),
                          str(block.get("name", "tool")), arguments, scrub)


def _usage(raw: object) -> Usage | None:
    """Anthropic's usage: input tokens exclude the cached ones, which NeoCode counts in."""
    if not isinstance(raw, dict):
        return None
    fresh, read = number(raw.get("input_tokens")), number(raw.get("cache_read_input_tokens")) or 0
    written = number(raw.get("cache_creation_input_tokens")) or 0
    return Usage(input_tokens=None if fresh is None else fresh + read + written,
                 output_tokens=number(raw.get("output_tokens")), cached_input_tokens=read,
                 cache_creation_input_tokens=written, reasoning_tokens=None)


def _image(source: object) -> Image | None:
    """A base64 image block, decoded and checked as a pasted one is; None when it is not one."""
    if not isinstance(source, dict) or source.get("type") != "base64" or not isinstance(source.get("data"), str):
        return None
    try:
        return prepare(base64.b64decode(source["data"], validate=True), "Claude Code image")
    except (ImageError, binascii.Error, ValueError):
        return None
