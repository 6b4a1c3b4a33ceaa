"""What the judge of a goal reads: the condition against what the agent's last turn showed.

The judge runs no tool and reads no file, so it gets the turn as the agent left it: the
commands run with the end of their output (tests and their counts), the files the file
tools changed, and the agent's last words; bounded, so a long turn costs a small request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from neocode_tui.chat import Message

MAX_EVIDENCE = 12_000
"""Characters of evidence the judge is sent, the latest kept."""
RESULT_TAIL = 1_200
"""Characters of each tool result kept: its end, where the test counts are."""
CHANGING = {"write_file": "wrote", "edit_file": "edited"}


def evidence_of(messages: Sequence[Message]) -> str:
    """The evidence in ``messages`` (one turn's, its prompt first): commands and their
    outcomes, files changed, the last answer."""
    results = {m.tool_call_id: m for m in messages if m.role == "tool"}
    lines: list[str] = []
    changed: list[str] = []
    for message in messages:
        for call in message.tool_calls if message.role == "assistant" else ():
            result = results.get(call.id)
            arguments = _arguments(call.arguments)
            if call.name in CHANGING and isinstance(arguments.get("path"), str):
                changed.append(f"{CHANGING[call.name]} {arguments['path']}")
            if call.name != "bash":
                continue
            outcome = "(no result)" if result is None else _tail(result.content)
            failed = " [failed]" if result is not None and result.is_error else ""
            lines.append(f"$ {arguments.get('command', '')}{failed}\n{outcome}")
    answer = next((m.content for m in reversed(messages) if m.role == "assistant" and m.content), "")
    parts = [
        "Commands run:\n" + ("\n\n".join(lines) if lines else "(none)"),
        "Files changed by the file tools: " + (", ".join(dict.fromkeys(changed)) or "none"),
        "The agent's last words:\n" + (answer.strip() or "(none)"),
    ]
    return "\n\n".join(parts)[-MAX_EVIDENCE:]


def _arguments(raw: str) -> dict[str, object]:
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= RESULT_TAIL else "…" + text[-RESULT_TAIL:]
