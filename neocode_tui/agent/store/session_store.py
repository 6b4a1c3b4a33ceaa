"""Sessions saved as they happen: one append-only JSONL file per session.

One record per line (a header, then each message, tool result and usage report), written
the moment it exists, so a kill at any point loses at most the line being written. Records
hold the transcript and the choices made in it (mode, model, effort): no URL or key. A
compaction is a record too: the transcript it starts replaces what came before on loading,
while the file keeps the whole history (and the first prompt, the title) above it.

Nothing on disk can stop a run. Reading skips what it cannot use (a torn or garbled line,
a record of the wrong shape, a folder or device named like a session) and says how much;
the transcript is then repaired so a model server accepts it. A store that cannot write
(a read-only folder, a full disk) stops saving, says why once, and the run goes on.

One process writes a session at a time: the file is locked (``flock``, which the kernel
drops when the process dies) while a store has it open. A second opener gets
``SessionBusy``, and can ``fork`` the session instead: a new one with the same history.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Literal

from pydantic import ValidationError

from neocode_tui.agent.session import Todo
from neocode_tui.agent.store.images import restored, stored
from neocode_tui.agent.store.listing import (
    MAX_RECORD,
    PROMPT_LENGTH,
    TitleSource,
    first_line,
    read_infos,
)
from neocode_tui.agent.store.listing import SessionInfo as SessionInfo  # where it was first
from neocode_tui.agent.store.listing import title_of as title_of
from neocode_tui.agent.transcript import repair
from neocode_tui.chat import Message, RunEnd
from neocode_tui.deferred import collections_paused
from neocode_tui.errors import SessionBusy, SessionNotFound
from neocode_tui.events import Usage
from neocode_tui.json_files import json_records
from neocode_tui.paths import data_dir, open_private
from neocode_tui.vocabulary import APPROVAL_MODES, EFFORTS, SESSION_ID_CHARACTERS, ApprovalMode, Effort

FORMAT_VERSION = 1
SHOWN_LINES = 5
"""Damaged line numbers named in a problem report; the rest are counted."""

ProblemCallback = Callable[[str], None]


def sessions_dir() -> Path:
    return data_dir() / "sessions"


@dataclass
class LoadedSession:
    info: SessionInfo
    messages: list[Message] = field(default_factory=list)
    """Repaired: valid for the next request whatever the file held."""
    usage: Usage = field(default_factory=Usage.unknown)
    todos: list[Todo] = field(default_factory=list)
    """The agent's task list as it last set it."""
    problems: list[str] = field(default_factory=list)
    """What was skipped or repaired on loading, in words for the user; empty when nothing."""
    subagents: dict[str, list[Message]] = field(default_factory=dict)
    """The subagents' transcripts, by the parent's ``task`` call id."""
    mode: ApprovalMode | None = None
    """The approval mode it was last in (None: a file from before that was kept)."""
    model: tuple[str, str] | None = None
    """``(provider, model)`` last chosen in it (``/model``, an editor's menu); None: never."""
    effort: Effort | Literal["off"] | None = None
    """The effort last chosen in it ("off": none sent); None: never chosen."""


class SessionStore:
    """One session file, open for appending and locked, or not saving (``problem`` says why)."""

    def __init__(self, session_id: str, path: Path, on_problem: ProblemCallback | None) -> None:
        self.id = session_id
        self.path = path
        self.problem: str | None = None
        """Why this session is not being saved; None while it is."""
        self._on_problem = on_problem
        self._file: IO[bytes] | None = None

    @property
    def saving(self) -> bool:
        return self._file is not None

    @classmethod
    def create(
        cls,
        workspace: Path,
        *,
        provider: str,
        model: str,
        on_problem: ProblemCallback | None = None,
        forked_from: str | None = None,
        fork_prompt: int | None = None,
    ) -> SessionStore:
        """A new session (made from session ``forked_from``, going another way at its prompt
        ``fork_prompt``, when given). If it cannot be written, a store that does not save
        (and has told ``on_problem`` why)."""
        session_id = f"{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        store = cls(session_id, sessions_dir() / f"{session_id}.jsonl", on_problem)
        try:
            store._file = open_private(store.path, "xb", buffering=0)
            _lock(store._file)  # a new file: nobody else can hold it
        except OSError as exc:
            store._stop(exc)
        header: dict[str, Any] = {
            "type": "session",
            "version": FORMAT_VERSION,
            "id": session_id,
            "workspace": str(workspace.resolve()),
            "created": _now(),
            "provider": provider,
            "model": model,
        }
        if forked_from:
            header["forked_from"] = forked_from
        if fork_prompt is not None:
            header["fork_prompt"] = fork_prompt
        store._write(header)
        return store

    @classmethod
    def resume(
        cls, info: SessionInfo, on_problem: ProblemCallback | None = None
    ) -> tuple[SessionStore, LoadedSession]:
        """Reopen a session for appending, locked, and read it (once, under the lock: another
        process may have added to it until then). Raises ``SessionBusy`` when another process
        has it open, ``SessionNotFound`` when it cannot be read."""
        store = cls(info.id, info.path, on_problem)
        try:
            store._file = open_private(store.path, "ab", buffering=0)
        except OSError as exc:
            store._stop(exc)  # readable but not writable: go on with what can be read
            return store, load_session(info)
        if not _lock(store._file):
            store.close()
            raise SessionBusy(info.id, _lock_holder(store.path))
        try:
            loaded = load_session(info)
        except SessionNotFound:
            store.close()
            raise
        store._finish_torn_line()
        return store, loaded

    @classmethod
    def fork(
        cls,
        session: LoadedSession,
        workspace: Path,
        *,
        provider: str,
        model: str,
        on_problem: ProblemCallback | None = None,
    ) -> tuple[SessionStore, list[Message]]:
        """A new session with ``session``'s history and token totals, for going on from
        where it is while it stays open elsewhere (or to try another direction)."""
        store = cls.create(workspace, provider=provider, model=model, on_problem=on_problem,
                           forked_from=session.info.id)
        for message in session.messages:
            store.append_message(message)
        if session.usage != Usage.unknown():
            store.append_usage(session.usage)
        if session.todos:
            store.append_todos(session.todos)
        if session.mode is not None:
            store.append_mode(session.mode)
        if session.model is not None:
            store.append_model(*session.model)
        if session.effort is not None:
            store.append_effort(None if session.effort == "off" else session.effort)
        return store, list(session.messages)

    def append_message(self, message: Message) -> None:
        """The message, with when it was written (a trajectory's step times) after it: a
        listing knows a user message by how its line begins."""
        self._write({"type": "message", "message": stored(message), "at": _now()})

    def append_prompt(self, prompt: str) -> None:
        """The first line of a prompt as the user sent it, for listings (the message sent
        may carry notes and hook context around it)."""
        self._write({"type": "prompt", "text": first_line(prompt, PROMPT_LENGTH)})

    def append_title(self, title: str, by: TitleSource) -> None:
        """The session's title from here on: the user's (``/rename``) or the small model's."""
        self._write({"type": "title", "title": title, "by": by})

    def append_compaction(self, messages: list[Message]) -> None:
        """From here on the transcript is ``messages``; the records above stay, whole."""
        self._write({
            "type": "compaction",
            "messages": [stored(message) for message in messages],
        })

    def append_subagent(self, call_id: str, agent: str, messages: list[Message]) -> None:
        """A subagent's whole transcript, once it ended: kept to show, never sent again."""
        self._write({
            "type": "subagent", "call_id": call_id, "agent": agent,
            "messages": [message.model_dump(exclude_defaults=True) for message in messages],
        })
    def append_todos(self, todos: list[Todo]) -> None:
        """The agent's task list from here on, whole."""
        self._write({"type": "todos", "todos": [todo.model_dump() for todo in todos]})

    def append_mode(self, mode: ApprovalMode) -> None:
        """The approval mode from here on: a resumed session comes back in it."""
        self._write({"type": "mode", "mode": mode})

    def append_model(self, provider: str, model: str) -> None:
        """The model chosen from here on: a resumed session on the same provider goes back to it."""
        self._write({"type": "model", "provider": provider, "model": model})

    def append_effort(self, effort: Effort | None) -> None:
        """The effort chosen from here on (None: none sent), for a resumed session."""
        self._write({"type": "effort", "effort": effort or "off"})

    def append_run_end(self, ended: RunEnd) -> None:
        """The run ended after the last message written, as ``ended`` says (loading puts it
        back on that message)."""
        self._write({"type": "run_end", **ended.model_dump(exclude_defaults=True)})

    def append_usage(self, usage: Usage) -> None:
        self._write({"type": "usage", "usage": usage.model_dump()})

    def close(self) -> None:
        """Stop writing and let other processes have the session."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def _write(self, record: dict[str, Any]) -> None:
        # Synchronous on purpose: a record is one small line into the OS buffer, and a
        # thread hop would let a cancel separate a record from the transcript it mirrors.
        if self._file is None:
            return
        # A lone surrogate (a file name that was not UTF-8) becomes a JSON \u escape.
        line = json.dumps(record, ensure_ascii=False) + "\n"
        self._write_bytes(line.encode("utf-8", "backslashreplace"))

    def _write_bytes(self, data: bytes) -> None:
        try:
            view = memoryview(data)
            while view and self._file is not None:
                view = view[self._file.write(view) :]
        except OSError as exc:
            self._stop(exc)

    def _finish_torn_line(self) -> None:
        """A line torn by a kill is ended, so the next record starts on its own line. The
        check reads bytes: a torn line may end in the middle of a UTF-8 character."""
        try:
            with self.path.open("rb") as raw:
                if raw.seek(0, os.SEEK_END) == 0:
                    return
                raw.seek(-1, os.SEEK_END)
                torn = raw.read(1) != b"\n"
        except OSError as exc:
            self._stop(exc)
            return
        if torn:
            self._write_bytes(b"\n")

    def _stop(self, exc: OSError) -> None:
        """Stop saving, and say why once."""
        self.close()
        if self.problem is not None:
            return
        where = exc.filename or self.path
        self.problem = (
            f"session {self.id} is not being saved: {where}: {exc.strerror or exc}; "
            "the conversation goes on, unsaved from here"
        )
        if self._on_problem is not None:
            self._on_problem(self.problem)


def _lock(handle: IO[bytes]) -> bool:
    """Lock the session for this process; False when another process holds it. A file
    system without locks (some network mounts) is written unlocked rather than not at all."""
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:
        pass
    return True


def _lock_holder(path: Path) -> int | None:
    """The process holding the lock on ``path``, from ``/proc/locks`` (Linux); None when
    it cannot be told."""
    try:
        status = path.stat()
        table = Path("/proc/locks").read_text()
    except OSError:
        return None
    inode = f"{os.major(status.st_dev):02x}:{os.minor(status.st_dev):02x}:{status.st_ino}"
    for line in table.splitlines():
        fields = line.split()  # "1: FLOCK  ADVISORY  WRITE 8425 fe:00:2179233 0 EOF"
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == inode:
            return int(fields[4]) if fields[4].isdigit() else None
    return None


class _Reader:
    """The records of one file, line by line; what cannot be used is counted, not fatal."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.damaged: list[int] = []

    def records(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """Each usable record with its line number. Raises ``OSError`` only when the file
        cannot be opened or read at all."""
        with self.path.open("rb") as handle:
            for number, record in json_records(handle, MAX_RECORD):
                if record is None:
                    self.damaged.append(number)
                else:
                    yield number, record

    def problem(self) -> str | None:
        if not self.damaged:
            return None
        shown = ", ".join(str(number) for number in self.damaged[:SHOWN_LINES])
        more = "…" if len(self.damaged) > SHOWN_LINES else ""
        return (f"{len(self.damaged)} unreadable line(s) of {self.path.name} were skipped "
                f"(line {shown}{more})")


def _session_files(pattern: str) -> list[Path]:
    """Regular files only: a folder, pipe or device named like a session is not one (and
    reading a pipe would wait forever)."""
    folder = sessions_dir()
    try:
        return sorted(path for path in folder.glob(pattern) if path.is_file())
    except OSError:
        return []


def list_sessions(workspace: Path, *, empty: bool = False) -> list[SessionInfo]:
    """Sessions started in ``workspace``, the most recently used first; unreadable files
    are left out, and so are sessions never prompted unless ``empty`` (an editor that made
    one to prompt later lists it; a person picking one to resume has nothing to see in it)."""
    root = str(workspace.resolve())
    here = [info for info in read_infos(_session_files("*.jsonl"), sessions_dir())
            if info.workspace == root]
    titles = {info.id: info.title for info in here}
    for info in here:
        info.parent_title = titles.get(info.forked_from, "")
    found = [info for info in here if empty or info.messages]
    return sorted(found, key=lambda info: info.updated, reverse=True)


def find_session(workspace: Path, session_id: str | None) -> SessionInfo:
    """The session with this id (or unique id prefix), or the latest one in ``workspace``."""
    if not session_id:
        sessions = list_sessions(workspace)
        if not sessions:
            raise SessionNotFound(f"no saved session for {workspace.resolve()}")
        return sessions[0]
    if not set(session_id.lower()) <= SESSION_ID_CHARACTERS:
        raise SessionNotFound(f"{session_id!r} is not a session id (see: neocode sessions)")
    exact = _session_files(f"{session_id}.jsonl")
    candidates = exact or _session_files(f"{session_id}*.jsonl")
    if len(candidates) > 1:
        raise SessionNotFound(
            f"{session_id!r} matches {len(candidates)} sessions; give more of the id"
        )
    try:
        found = read_infos(candidates, sessions_dir(), every=False, unreadable="raise")
    except OSError as exc:
        raise SessionNotFound(f"cannot read session {session_id}: {exc.strerror or exc}") from None
    if not found:
        raise SessionNotFound(f"no saved session with id {session_id!r}")
    return found[0]


def delete_session(session_id: str) -> None:
    """Remove the saved session with exactly this id (no prefix: a deletion names what it
    removes). ``SessionNotFound`` when there is none, ``SessionBusy`` while a process has it
    open (its next write would make it again)."""
    if not session_id or not set(session_id.lower()) <= SESSION_ID_CHARACTERS:
        raise SessionNotFound(f"{session_id!r} is not a session id (see: neocode sessions)")
    found = _session_files(f"{session_id}.jsonl")
    if not found:
        raise SessionNotFound(f"no saved session with id {session_id!r}")
    [path] = found
    with path.open("rb") as handle:
        if not _lock(handle):
            raise SessionBusy(session_id, _lock_holder(path))
        path.unlink()


def session_records(info: SessionInfo) -> Iterator[dict[str, Any]]:
    """Every usable record of the file as written, in order (what a trajectory is made of);
    ``SessionNotFound`` when it cannot be read."""
    try:
        for _, record in _Reader(info.path).records():
            yield record
    except OSError as exc:
        raise SessionNotFound(f"cannot read session {info.id}: {exc.strerror or exc}") from None


def load_session(info: SessionInfo) -> LoadedSession:
    """The session's transcript, repaired, and its token totals. Raises ``SessionNotFound``
    when the file cannot be read at all."""
    with collections_paused():
        return _load(info)


def _load(info: SessionInfo) -> LoadedSession:
    session = LoadedSession(info)
    reader = _Reader(info.path)
    messages: list[Message] = []
    try:
        for number, record in reader.records():
            try:
                if record.get("type") == "message":
                    messages.append(Message.model_validate(record.get("message")))
                elif record.get("type") == "run_end" and messages:
                    messages[-1] = messages[-1].model_copy(
                        update={"ended": RunEnd.model_validate(record)})
                elif record.get("type") == "compaction":
                    messages = [Message.model_validate(m) for m in record.get("messages") or []]
                elif record.get("type") == "subagent" and isinstance(record.get("call_id"), str):
                    session.subagents[record["call_id"]] = [
                        Message.model_validate(m) for m in record.get("messages") or []]
                elif record.get("type") == "todos":
                    session.todos = [Todo.model_validate(todo) for todo in record.get("todos") or []]
                elif record.get("type") == "mode" and record.get("mode") in APPROVAL_MODES:
                    session.mode = record["mode"]
                elif record.get("type") == "model" and _names(record, "provider", "model"):
                    session.model = (record["provider"], record["model"])
                elif record.get("type") == "effort" and record.get("effort") in (*EFFORTS, "off"):
                    session.effort = record["effort"]
                elif record.get("type") == "usage":
                    session.usage = session.usage + Usage.model_validate(record.get("usage"))
            except ValidationError:
                reader.damaged.append(number)
    except OSError as exc:
        raise SessionNotFound(f"cannot read session {info.id}: {exc.strerror or exc}") from None
    lost: list[str] = []
    for position, message in enumerate(messages):
        messages[position], missing = restored(message)
        lost += missing
    repaired = repair(messages)
    session.messages = repaired.messages
    session.problems = [p for p in (reader.problem(), *repaired.notes, *lost) if p]
    return session


def _names(record: dict[str, Any], *keys: str) -> bool:
    """Whether each of ``keys`` holds a name (a short, non-empty string)."""
    return all(isinstance(record.get(key), str) and 0 < len(record[key]) <= 200 for key in keys)


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")
