"""``neocode import FILE``: another agent's session saved as a NeoCode session that
``--resume`` opens, in the folder the import runs in (never the one the file names: a file
is data, and says nothing about where it may be opened)."""

from __future__ import annotations

import itertools
from pathlib import Path

from neocode_tui.agent.interchange import claude_code, codex
from neocode_tui.agent.interchange.transcript import Imported, Scrub, json_lines
from neocode_tui.agent.store import SessionStore
from neocode_tui.agent.transcript import repair
from neocode_tui.errors import NeoCodeError
from neocode_tui.events import Usage


class ImportProblem(NeoCodeError):
    """A file that is not a session this can read, or a session that could not be saved."""


def read_transcript(path: Path, scrub: Scrub) -> Imported:
    """The file's conversation, whichever agent wrote it (told by its first lines)."""
    try:
        first = list(itertools.islice(json_lines(path, Imported("")), 5))
    except OSError as exc:
        raise ImportProblem(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        if any(codex.looks_like(record) for record in first[:1]):
            imported = codex.read_codex(path, scrub)
        elif any(claude_code.looks_like(record) for record in first):
            imported = claude_code.read_claude_code(path, scrub)
        else:
            raise ImportProblem(f"{path} is neither a Claude Code session (JSONL of events with a sessionId) "
                                "nor a Codex rollout (JSONL starting with session_meta)")
    except OSError as exc:
        raise ImportProblem(f"cannot read {path}: {exc.strerror or exc}") from None
    if not any(message.role == "user" and not message.notice for message in imported.messages):
        raise ImportProblem(f"{path}: no prompt found in this {imported.source} session")
    return imported


def save_imported(imported: Imported, workspace: Path, provider: str) -> str:
    """A new session file in ``workspace`` holding ``imported``; its id."""
    store = SessionStore.create(workspace, provider=provider, model=imported.model)
    if not store.saving:
        raise ImportProblem(f"cannot save the session: {store.problem}")
    try:
        first = next(message for message in imported.messages if message.role == "user" and not message.notice)
        store.append_prompt(first.content)
        for message in repair(imported.messages).messages:  # every call with its one result
            store.append_message(message)
        if imported.usage != Usage.unknown():
            store.append_usage(imported.usage)
    finally:
        store.close()
    return store.id
