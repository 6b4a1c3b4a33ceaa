"""Sessions saved as they happen: one append-only JSONL file per session.

One record per line (a header, then each message, tool result and usage report), written
and flushed the moment it exists, so a kill at any point loses at most the line being
written. Loading skips a torn line instead of failing, and resuming repairs a dangling
tail (tool calls without results get "interrupted" results) so the transcript is valid
for the next request. Records hold the transcript only: no setting, URL or key.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from neocode_tui.agent.transcript import interrupted_results
from neocode_tui.errors import SessionNotFound
from neocode_tui.chat import Message
from neocode_tui.events import Usage
from neocode_tui.paths import data_dir

FORMAT_VERSION = 1
TITLE_LENGTH = 70
ID_CHARACTERS = frozenset("0123456789abcdefghijklmnopqrstuvwxyz-")


def sessions_dir() -> Path:
    return data_dir() / "sessions"


@dataclass
class SessionInfo:
    id: str
    path: Path
    workspace: str
    created: str
    updated: datetime
    title: str


@dataclass
class LoadedSession:
    info: SessionInfo
    messages: list[Message] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


class SessionStore:
    """One session file, open for appending."""

    def __init__(self, session_id: str, path: Path) -> None:
        self.id = session_id
        self.path = path
        self._file: IO[str] = _open_for_append(path)

    @classmethod
    def create(cls, workspace: Path, *, provider: str, model: str) -> SessionStore:
        session_id = f"{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        folder = sessions_dir()
        folder.mkdir(parents=True, exist_ok=True)
        store = cls(session_id, folder / f"{session_id}.jsonl")
        store._write(
            {
                "type": "session",
                "version": FORMAT_VERSION,
                "id": session_id,
                "workspace": str(workspace.resolve()),
                "created": datetime.now().astimezone().isoformat(timespec="seconds"),
                "provider": provider,
                "model": model,
            }
        )
        return store

    @classmethod
    def resume(cls, session: LoadedSession) -> tuple[SessionStore, list[Message]]:
        """Reopen a loaded session; its dangling tool calls get "interrupted" results,
        saved too, so the next request is valid."""
        store = cls(session.info.id, session.info.path)
        messages = list(session.messages)
        for repair in interrupted_results(messages):
            messages.append(repair)
            store.append_message(repair)
        return store, messages

    def append_message(self, message: Message) -> None:
        self._write({"type": "message", "message": message.model_dump(exclude_defaults=True)})

    def append_usage(self, usage: Usage) -> None:
        self._write({"type": "usage", "usage": usage.model_dump()})

    def close(self) -> None:
        self._file.close()

    def _write(self, record: dict[str, Any]) -> None:
        # Synchronous on purpose: a record is one small line into the OS buffer, and a
        # thread hop would let a cancel separate a record from the transcript it mirrors.
        self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._file.flush()


def _open_for_append(path: Path) -> IO[str]:
    """Append mode, after finishing a line torn by a kill so the next record starts clean.
    The check reads bytes: a torn line may end in the middle of a UTF-8 character."""
    torn = False
    if path.exists() and path.stat().st_size:
        with path.open("rb") as raw:
            raw.seek(-1, os.SEEK_END)
            torn = raw.read(1) != b"\n"
    handle = path.open("a", encoding="utf-8")
    if torn:
        handle.write("\n")
    return handle


def _records(path: Path) -> Any:
    """Each parseable record; a torn or garbled line is skipped, never fatal."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict):
                yield record


def _info(path: Path) -> SessionInfo | None:
    header: dict[str, Any] | None = None
    title = ""
    for record in _records(path):
        if header is None:
            if record.get("type") != "session":
                return None
            header = record
        elif record.get("type") == "message":
            message = record.get("message")
            if isinstance(message, dict) and message.get("role") == "user":
                title = title_of(str(message.get("content", "")))
                break
    if header is None:
        return None
    return SessionInfo(
        id=str(header.get("id", path.stem)),
        path=path,
        workspace=str(header.get("workspace", "")),
        created=str(header.get("created", "")),
        updated=datetime.fromtimestamp(path.stat().st_mtime),
        title=title,
    )


def title_of(prompt: str) -> str:
    """A session's title: the first line of its first prompt, cut to fit a listing."""
    line = next((part.strip() for part in prompt.splitlines() if part.strip()), "")
    return line if len(line) <= TITLE_LENGTH else line[: TITLE_LENGTH - 1] + "…"


def list_sessions(workspace: Path) -> list[SessionInfo]:
    """Sessions started in ``workspace``, the most recently used first."""
    folder = sessions_dir()
    if not folder.is_dir():
        return []
    root = str(workspace.resolve())
    found = [info for path in folder.glob("*.jsonl") if (info := _info(path))]
    return sorted(
        (info for info in found if info.workspace == root),
        key=lambda info: info.updated,
        reverse=True,
    )


def find_session(workspace: Path, session_id: str | None) -> SessionInfo:
    """The session with this id (or unique id prefix), or the latest one in ``workspace``."""
    if not session_id:
        sessions = list_sessions(workspace)
        if not sessions:
            raise SessionNotFound(f"no saved session for {workspace.resolve()}")
        return sessions[0]
    if not set(session_id.lower()) <= ID_CHARACTERS:
        raise SessionNotFound(f"{session_id!r} is not a session id (see: neocode sessions)")
    folder = sessions_dir()
    exact = folder / f"{session_id}.jsonl"
    candidates = [exact] if exact.is_file() else sorted(folder.glob(f"{session_id}*.jsonl"))
    if len(candidates) > 1:
        raise SessionNotFound(
            f"{session_id!r} matches {len(candidates)} sessions; give more of the id"
        )
    info = _info(candidates[0]) if candidates else None
    if info is None:
        raise SessionNotFound(f"no saved session with id {session_id!r}")
    return info


def load_session(info: SessionInfo) -> LoadedSession:
    session = LoadedSession(info)
    for record in _records(info.path):
        try:
            if record.get("type") == "message":
                session.messages.append(Message.model_validate(record.get("message")))
            elif record.get("type") == "usage":
                session.usage = session.usage + Usage.model_validate(record.get("usage"))
        except ValidationError:
            continue  # a garbled record: skipped like a torn line
    return session
