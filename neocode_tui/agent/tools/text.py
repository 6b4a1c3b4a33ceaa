"""Reading workspace files as text: the checks every file tool shares."""

from __future__ import annotations

from pathlib import Path

from neocode_tui.agent.tools.base import ToolError

SNIFF_BYTES = 8192


def looks_binary(head: bytes) -> bool:
    """Git's rule: a NUL byte in the first few kilobytes means binary."""
    return b"\0" in head[:SNIFF_BYTES]


def check_text_file(path: Path, shown: str) -> None:
    """Raise a ``ToolError`` the model can act on unless ``path`` is a readable text file."""
    if not path.exists():
        raise ToolError(f"no such file: {shown}")
    if path.is_dir():
        raise ToolError(f"{shown} is a folder, not a file (use list_dir to see inside)")
    with path.open("rb") as handle:
        if looks_binary(handle.read(SNIFF_BYTES)):
            raise ToolError(f"{shown} is a binary file ({path.stat().st_size} bytes)")


def read_text(path: Path, shown: str) -> str:
    """The file's text with its line endings kept, so an edit does not rewrite them all."""
    check_text_file(path, shown)
    with path.open(encoding="utf-8", errors="replace", newline="") as handle:
        return handle.read()


def line_count(text: str) -> int:
    return len(text.splitlines())
