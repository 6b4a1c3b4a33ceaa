"""What a listing of saved sessions shows of each (title, latest prompt, size, parentage),
read from the session files without loading them, and kept in an index beside them.

A session file is append-only, so what was read of it stays true: the index remembers, for
each file, how far it was read and what that gave; the next listing reads only the lines
added since (a ``stat`` when there are none), in any process. A file that is not the one
read (another inode, shorter, other bytes where the reading stopped) is read again from the
start. The index is only ever a shortcut: lost, damaged or stale, it is rebuilt from the
files, and a listing never fails because of it.

Lines are told apart by how ``SessionStore`` starts them; only the few a listing needs
(the header, prompts, titles, a compaction) are parsed, never an answer or a tool result.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from neocode_tui.paths import write_private

TITLE_LENGTH = 70
PROMPT_LENGTH = 200
"""Characters of a prompt's first line that a listing keeps."""
MAX_RECORD = 32 * 1024 * 1024
"""Bytes a record may have: a longer line is skipped as damaged, never held in memory whole."""
INDEX_NAME = "index.json"
MAX_INDEX = 64 * 1024 * 1024
"""An index larger than this is not read (it is rebuilt): no file makes a listing hold more."""
CHECK_BYTES = 32
"""Bytes before the point a file was read to, kept to tell that it is still the same file."""

TitleSource = Literal["user", "model", "prompt", ""]
"""Who named the session: renamed by the user, the small model's title, the first prompt."""


@dataclass
class SessionInfo:
    id: str
    path: Path
    workspace: str
    created: str
    updated: datetime
    title: str
    """The user's name for it, else the small model's title, else its first prompt's first
    line (up to ``PROMPT_LENGTH``)."""
    model: str = ""
    """The model the session started with (its header's)."""
    messages: int = 0
    """Messages in its transcript, counted without parsing them."""
    title_by: TitleSource = ""
    latest_prompt: str = ""
    """The first line of the last prompt sent in it."""
    forked_from: str = ""
    """The session it was made from (by ``/rewind``, or opened while busy elsewhere)."""
    fork_prompt: int | None = None
    """The prompt of ``forked_from`` it went another way at (``/rewind``'s number)."""
    parent_title: str = ""
    """``forked_from``'s title, when it is listed with it."""


def title_of(prompt: str) -> str:
    """A session's title: the first line of its first prompt, cut to fit a listing."""
    return first_line(prompt, TITLE_LENGTH)


def first_line(text: str, length: int = PROMPT_LENGTH) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= length else line[: length - 1] + "…"


class _Header(BaseModel):
    model_config = ConfigDict(defer_build=True)

    type: Literal["session"]
    id: str
    workspace: str
    created: str = ""
    model: str = ""
    forked_from: str = ""
    fork_prompt: int | None = None


class _Read(BaseModel):
    """What the lines of one file read so far give."""

    model_config = ConfigDict(defer_build=True)

    header: _Header
    messages: int = 0
    first_prompt: str = ""
    latest_prompt: str = ""
    latest_user: str = ""
    """The last user message's first line: the latest prompt of a file with no prompt records."""
    titles: dict[str, str] = {}
    """The latest title by who gave it (``user``, ``model``)."""


class _Entry(BaseModel):
    model_config = ConfigDict(defer_build=True)

    stamp: tuple[int, int, int]
    """Inode, size and modification time of the file when it was last read."""
    offset: int
    """Bytes read: up to the end of the last whole line."""
    check: str
    """The ``CHECK_BYTES`` before ``offset``, in hex."""
    read: _Read | None
    """None: not a session file (its first record is no header)."""


class _Index(BaseModel):
    model_config = ConfigDict(defer_build=True)

    version: Literal[1]
    files: dict[str, _Entry]


# How ``SessionStore`` starts each kind of line: its first ``_KIND`` bytes tell them apart.
_KIND = 18
_MESSAGE = b'{"type": "message"'
_USER_MESSAGE = b'{"type": "message", "message": {"role": "user"'
_COMPACTION = b'{"type": "compacti'
_PROMPT = b'{"type": "prompt",'
_TITLE = b'{"type": "title", '


def read_infos(paths: Iterable[Path], folder: Path, *, every: bool = True,
               unreadable: Literal["skip", "raise"] = "skip") -> list[SessionInfo]:
    """The sessions among ``paths`` (files of ``folder``; ``every``: all of them, so the
    index forgets the files that are gone), from the index where it still holds and from the
    lines added since where it does not; a file that cannot be read is left out, or its
    ``OSError`` raised."""
    index = _load_index(folder / INDEX_NAME)
    kept: dict[str, _Entry] = {} if every else dict(index)
    found: list[SessionInfo] = []
    changed = False
    for path in paths:
        known = index.get(path.name)
        try:
            entry = _follow(path, known)
        except OSError:
            if unreadable == "raise":
                raise
            continue
        changed |= entry is not known
        kept[path.name] = entry
        if entry.read is not None:
            found.append(_info(path, entry))
    if changed or kept.keys() != index.keys():
        _save_index(folder / INDEX_NAME, kept)
    return found


def _info(path: Path, entry: _Entry) -> SessionInfo:
    assert entry.read is not None
    read, header = entry.read, entry.read.header
    by: TitleSource = next((source for source in ("user", "model") if read.titles.get(source)), "")
    title = read.titles[by] if by else read.first_prompt  # whole: a listing cuts it to its width
    return SessionInfo(
        id=header.id, path=path, workspace=header.workspace, created=header.created,
        updated=datetime.fromtimestamp(entry.stamp[2] / 1e9), title=title, model=header.model,
        messages=read.messages, title_by=by or ("prompt" if title else ""),
        latest_prompt=read.latest_prompt or read.latest_user,
        forked_from=header.forked_from, fork_prompt=header.fork_prompt,
    )


def _follow(path: Path, known: _Entry | None) -> _Entry:
    """``known`` when the file is as it was; otherwise it read on from where it stopped
    (from the start, when the file is not the one read)."""
    status = path.stat()
    if known is not None and known.stamp == _stamp(status):
        return known
    with path.open("rb") as handle:
        status = os.fstat(handle.fileno())  # the file opened: it may have changed since
        if known is None or not _continues(handle, known, status.st_ino, status.st_size) or (
                known.read is None and not known.offset):  # no whole line was there to read
            known = None
        elif known.read is None:  # not a session, grown: still not one
            return known.model_copy(update={"stamp": _stamp(status)})
        return _read_on(handle, known, _stamp(status))


def _stamp(status: os.stat_result) -> tuple[int, int, int]:
    return (status.st_ino, status.st_size, status.st_mtime_ns)


def _continues(handle: IO[bytes], known: _Entry, inode: int, size: int) -> bool:
    """The file is the one ``known`` read, grown since: same inode, the same bytes where the
    reading stopped."""
    if known.stamp[0] != inode or size < known.offset:
        return False
    start = max(0, known.offset - CHECK_BYTES)
    handle.seek(start)
    return handle.read(known.offset - start).hex() == known.check


def _read_on(handle: IO[bytes], known: _Entry | None, stamp: tuple[int, int, int]) -> _Entry:
    """``known`` (None: nothing) and what the file's whole lines after it add."""
    if known is None:
        header = _header(handle)
        if header is None:
            return _Entry(stamp=stamp, offset=0, check="", read=None)
        read: _Read | None = _Read(header=header) if isinstance(header, _Header) else None
        if read is None:  # not a session file: nothing more of it is read
            return _Entry(stamp=stamp, offset=handle.tell(), check=_check(handle, handle.tell()), read=None)
        offset = handle.tell()
    else:
        assert known.read is not None
        read, offset = known.read.model_copy(deep=True), known.offset  # ``known`` stays as it was
    scan = _Scan(read)
    offset = scan.lines(handle, offset)
    return _Entry(stamp=stamp, offset=offset, check=_check(handle, offset), read=scan.done())


def _header(handle: IO[bytes]) -> _Header | bool | None:
    """The first record that can be read, as a header; False when it is none (not a
    session file), None when the file has no whole line yet."""
    handle.seek(0)
    while line := handle.readline(MAX_RECORD + 1):
        if not line.endswith(b"\n"):
            return None if len(line) <= MAX_RECORD else False
        if (record := _parsed(line)) is not None:
            try:
                return _Header.model_validate(record)
            except ValidationError:
                return False
    return None


def _check(handle: IO[bytes], offset: int) -> str:
    handle.seek(max(0, offset - CHECK_BYTES))
    return handle.read(min(offset, CHECK_BYTES)).hex()


CHUNK = 1024 * 1024
_NEW = b"\n"


class _Scan:
    """What the lines after a point add to ``_Read``, found in big blocks by how the lines
    start (a record is one line: JSON escapes a newline in a string), not line by line:
    of the prompts only the first and the last are parsed, once the reading is done."""

    __slots__ = ("read", "messages", "first", "last_user", "last_prompt")

    def __init__(self, read: _Read) -> None:
        self.read = read
        self.messages = read.messages
        self.first: bytes | None = None
        self.last_user: bytes | None = None
        self.last_prompt: bytes | None = None

    def lines(self, handle: IO[bytes], offset: int) -> int:
        """Read from ``offset`` (a line's start) to the end of the last whole line; returns
        where that is. A line longer than ``MAX_RECORD`` is skipped, never held whole."""
        handle.seek(offset)
        carry, skipping = b"", False
        while block := handle.read(CHUNK):
            if skipping:
                end = block.find(_NEW)
                if end < 0:
                    offset += len(block)
                    continue
                offset, block, skipping = offset + end + 1, block[end + 1:], False
            data = carry + block
            cut = data.rfind(_NEW) + 1
            if cut:
                self._block(data[:cut - 1])
                offset += cut
            carry = data[cut:]
            if len(carry) > MAX_RECORD:
                offset, carry, skipping = offset + len(carry), b"", True
        return offset

    def _block(self, data: bytes) -> None:
        """Whole lines, told apart by their first bytes."""
        lines = data.split(_NEW)
        kinds = [line[:_KIND] for line in lines]
        if _COMPACTION in kinds:
            last = len(kinds) - 1 - kinds[::-1].index(_COMPACTION)
            messages = (_parsed(lines[last]) or {}).get("messages")
            self.messages = len(messages) if isinstance(messages, list) else self.messages
            self.messages += kinds[last:].count(_MESSAGE)
        else:
            self.messages += kinds.count(_MESSAGE)
        self.last_user = _last(lines, kinds, _MESSAGE, _USER_MESSAGE) or self.last_user
        self.last_prompt = _last(lines, kinds, _PROMPT, _PROMPT) or self.last_prompt
        if self.first is None:
            self.first = next((line for kind, line in zip(kinds, lines) if kind == _PROMPT
                               or (kind == _MESSAGE and line.startswith(_USER_MESSAGE))), None)
        if _TITLE in kinds:
            for kind, line in zip(kinds, lines):
                if kind == _TITLE:
                    self._title(line)

    def _title(self, line: bytes) -> None:
        record = _parsed(line) or {}
        title, by = _field(record, "title"), record.get("by")
        if by in ("user", "model"):
            self.read.titles[by] = first_line(title, TITLE_LENGTH)

    def done(self) -> _Read:
        read = self.read
        read.messages = self.messages
        if self.last_user is not None:
            read.latest_user = _prompt_line(self.last_user)
        if self.last_prompt is not None:
            read.latest_prompt = _prompt_line(self.last_prompt) or read.latest_prompt
        if self.first is not None and not read.first_prompt:
            read.first_prompt = _prompt_line(self.first)
        return read


def _last(lines: list[bytes], kinds: list[bytes], kind: bytes, start: bytes) -> bytes | None:
    """The last of ``lines`` of ``kind`` that starts with ``start``."""
    for at in range(len(lines) - 1, -1, -1):
        if kinds[at] == kind and lines[at].startswith(start):
            return lines[at]
    return None


def _prompt_line(line: bytes) -> str:
    """The first line of a prompt record's text or a user message's content."""
    record = _parsed(line)
    return first_line(_field(record, "text") or _field(record, "message", "content"))


def _parsed(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def _field(record: dict[str, Any] | None, *keys: str) -> str:
    """``record[keys[0]][keys[1]]...`` when it is a string, else ""."""
    value: Any = record
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, str) else ""


_loaded: dict[Path, tuple[tuple[int, int, int], dict[str, _Entry]]] = {}
"""The index as this process last read or wrote it, while its file stays the same: listing
again (``/resume`` completion as it is typed) costs a ``stat`` per file, not a parse. The
entries are never changed in place, so they can be shared."""


def _load_index(path: Path) -> dict[str, _Entry]:
    try:
        with path.open("rb") as handle:
            stamp = _stamp(os.fstat(handle.fileno()))
            if (known := _loaded.get(path)) is not None and known[0] == stamp:
                return known[1]
            data = handle.read(MAX_INDEX + 1)
    except OSError:
        return {}
    if len(data) > MAX_INDEX:
        return {}
    try:
        files = _Index.model_validate(json.loads(data)).files
    except (ValueError, RecursionError):  # damaged, or of another version: rebuilt from the files
        return {}
    _loaded[path] = (stamp, files)
    return files


def _save_index(path: Path, files: dict[str, _Entry]) -> None:
    """Written whole and renamed into place; a listing that cannot write it goes on (the
    next one reads the files again)."""
    # ASCII: a name that was not UTF-8 (a lone surrogate) is kept as its \u escape.
    data = json.dumps(_Index(version=1, files=files).model_dump(exclude_defaults=True))
    try:
        write_private(path, data.encode("ascii"))
        _loaded[path] = (_stamp(path.stat()), files)
    except OSError:
        pass
