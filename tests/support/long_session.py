"""A saved session far too long for a small model window."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.agent.store.session_store import SessionStore
from neocode_tui.chat import Message, ToolCall

WINDOW = 20_000
"""The model window (tokens) the session is far too long for."""
EXCHANGES = 500


def long_session(workspace: Path) -> int:
    """A saved session of ``EXCHANGES`` exchanges, each a question, a call that reads a
    file, the file and an answer (about 650 tokens): 16 times the window. Its messages."""
    store = SessionStore.create(workspace, provider="openai", model="test-model")
    for n in range(EXCHANGES):
        call = ToolCall(id=f"call_{n}", name="read_file", arguments=json.dumps({"path": f"step_{n}.py"}))
        for message in [
            Message(role="user", content=f"question {n}: why does step {n} read twice?"),
            Message(role="assistant", content="Let me look.", tool_calls=[call]),
            Message(role="tool", content=f"def step_{n}():\n" + "    reload()\n" * 200,
                    tool_call_id=call.id, name="read_file", status="ok"),
            Message(role="assistant", content=f"answer {n}: " + "it reloads. " * 30),
        ]:
            store.append_message(message)
    store.close()
    return EXCHANGES * 4
