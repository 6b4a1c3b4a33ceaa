"""Reading workspace files as text, and cutting text to size: what every tool shares.

Files are opened through ``Workspace.open_file`` (no symlink swapped in, regular files
only) and read in bounded chunks, so neither a FIFO, a device nor a 2 GB one-line file
can hang a tool or fill the memory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from neocode_tui.agent.buffers import BufferError
from neocode_tui.agent.tools.base import Deadline, ToolError
from neocode_tui.agent.workspace import NotARegularFile, Workspace

SNIFF_BYTES = 8192
CHUNK = 1 << 16
MAX_EDIT_BYTES = 10_000_000
"""Files larger than this are not loaded whole for an edit (use bash for those)."""


def looks_binary(head: bytes) -> bool:
    """Git's rule: a NUL byte in the first few kilobytes means binary."""
    return b"\0" in head[:SNIFF_BYTES]


@contextmanager
def open_text_file(
    workspace: Workspace, path: Path, shown: str
) -> Iterator[tuple[int, os.stat_result]]:
    """The descriptor of a readable text file, or a ``ToolError`` the model can act on."""
    try:
        fd, status = workspace.open_file(path)
    except FileNotFoundError:
        raise ToolError(f"no such file: {shown}") from None
    except IsADirectoryError:
        raise ToolError(f"{shown} is a folder, not a file (use list_dir to see inside)") from None
    except NotARegularFile as exc:
        raise ToolError(exc.strerror) from None
    try:
        if looks_binary(os.pread(fd, SNIFF_BYTES, 0)):
            raise ToolError(f"{shown} is a binary file ({status.st_size} bytes)")
        yield fd, status
    finally:
        os.close(fd)


def read_text(workspace: Workspace, path: Path, shown: str, deadline: Deadline) -> str:
    """The file's text with its line endings kept, so an edit does not rewrite them all.

    Bytes that are not UTF-8 come back as surrogate escapes, so writing the text back
    (``encode_text``) leaves them exactly as they were.
    """
    with open_text_file(workspace, path, shown) as (fd, status):
        if status.st_size > MAX_EDIT_BYTES:
            raise ToolError(
                f"{shown} is {status.st_size} bytes, more than the {MAX_EDIT_BYTES} an edit "
                "loads; change it with a command instead"
            )
        if workspace.buffers is not None:
            return editor_text(workspace, path, shown)
        chunks = []
        size = 0
        while chunk := os.read(fd, CHUNK):
            size += len(chunk)
            if size > MAX_EDIT_BYTES:
                raise ToolError(f"{shown} grew past {MAX_EDIT_BYTES} bytes while being read")
            chunks.append(chunk)
            deadline.check()
    return b"".join(chunks).decode("utf-8", "surrogateescape")


def editor_text(workspace: Workspace, path: Path, shown: str) -> str:
    """The editor's text of a file checked on disk (``open_text_file``), unsaved changes
    included."""
    assert workspace.buffers is not None
    try:
        text = workspace.buffers.read(path)
    except BufferError as exc:
        raise ToolError(f"the editor could not read {shown}: {exc.strerror or exc}") from None
    if len(text) > MAX_EDIT_BYTES:
        raise ToolError(f"{shown} is more than {MAX_EDIT_BYTES} characters in the editor")
    return text


def write_text(workspace: Workspace, path: Path, text: str) -> None:
    """A file's new text: into the editor's buffer when it has one, else onto the disk
    (``Workspace.replace_file``)."""
    if workspace.buffers is None:
        workspace.replace_file(path, encode_text(text))
        return
    with workspace.open_dir(path.parent, create=True):
        pass  # missing folders are made inside the workspace, as for a write to disk
    try:
        workspace.buffers.write(path, text)
    except BufferError as exc:
        shown = workspace.relative(path)
        raise ToolError(f"the editor could not write {shown}: {exc.strerror or exc}") from None


def encode_text(text: str) -> bytes:
    """Text for the disk; the surrogate escapes of ``read_text`` become their bytes again."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise ToolError(
            f"the text has a character that cannot be written as UTF-8 at position "
            f"{exc.start} ({exc.reason})"
        ) from None


def line_count(text: str) -> int:
    return len(text.splitlines())
