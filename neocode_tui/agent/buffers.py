"""An editor's copy of the files: what a read sees and where an edit lands.

An editor (over ACP) may hold text the user has not saved. When it offers its buffers,
``read_file`` and the edit tools read that text and write into the buffer, so the model
works on what the user sees and the editor neither reloads nor conflicts. Everything
else about a file tool stays as it is: the path is confined and resolved first, the
file must be a text file on disk, approvals, checkpoints and scrubbing apply as before.
The calls come from the worker thread a file tool runs in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class Buffers(Protocol):
    def read(self, path: Path) -> str:
        """The text of ``path`` as the editor has it (its unsaved changes included)."""
        ...

    def write(self, path: Path, text: str) -> None:
        """Give the editor's ``path`` this text (the editor saves it as it does its own)."""
        ...


class BufferError(OSError):
    """The editor could not read or write the file: said to the model as a tool error."""
