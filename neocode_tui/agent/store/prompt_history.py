"""The prompts sent in each folder, kept across runs for Up and Ctrl+R: one JSON line each
in the data folder's ``prompt_history.jsonl`` (0600), scrubbed of the session's secrets
before they are written, and bounded (the oldest lines go once there are too many)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from neocode_tui.paths import data_dir, open_private, write_private

KEPT = 1000
"""Prompts kept, of every folder together; the file is cut back to these once it holds twice
as many, so a write seldom rewrites it."""
PROMPT_CAP = 10_000
"""Characters of one prompt kept (a long paste): enough to find it again and send it on."""


def history_file() -> Path:
    return data_dir() / "prompt_history.jsonl"


class PromptLog:
    """This folder's prompts on the disk; ``scrub`` takes the secrets out of each."""

    def __init__(self, workspace: Path, scrub: Callable[[str], str], path: Path | None = None) -> None:
        self.folder = str(workspace)
        self._scrub = scrub
        self.path = path or history_file()
        self._lines: int | None = None
        """Lines in the file, once it has been read."""
        self._torn = False
        """The file, when last read, ended in the middle of a line."""

    def load(self) -> list[str]:
        """This folder's prompts, oldest first; a line that is not a prompt is passed over."""
        prompts: list[str] = []
        lines = self._read()
        self._lines = len(lines)
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("folder") == self.folder and isinstance(record.get("text"), str):
                prompts.append(record["text"])
        return prompts

    def add(self, text: str) -> None:
        """Keep ``text``; a disk that refuses loses only the history, never the prompt."""
        line = json.dumps({"folder": self.folder, "text": self._scrub(text[:PROMPT_CAP])}, ensure_ascii=False)
        try:
            if self._lines is None:
                self._lines = len(self._read())
            with open_private(self.path, "a", encoding="utf-8", errors="backslashreplace") as file:
                # A line another run left torn (it stopped mid-write) is ended first.
                file.write(("\n" if self._torn else "") + line + "\n")
            self._torn = False
            self._lines += 1
            if self._lines > 2 * KEPT:
                kept = self._read()[-KEPT:]
                write_private(self.path, "".join(f"{kept_line}\n" for kept_line in kept).encode())
                self._lines = len(kept)
        except OSError:
            return

    def _read(self) -> list[str]:
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        self._torn = bool(text) and not text.endswith("\n")
        return text.splitlines()
