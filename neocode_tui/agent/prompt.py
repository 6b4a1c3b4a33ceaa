"""The system prompt: who the agent is, where it works, and the user's standing instructions.

Instructions come from two files: ``AGENTS.md`` at the workspace root (the project's, the
same file other agents read) and ``AGENTS.md`` in the user's config folder (theirs, for
every project).
"""

from __future__ import annotations

import platform
from pathlib import Path

from neocode_tui.paths import config_dir

INSTRUCTIONS_FILE = "AGENTS.md"
MAX_INSTRUCTIONS = 20_000

BASE_PROMPT = """\
You are NeoCode, a coding agent working in a terminal on {system}. The project is the folder \
{root}; every path you use is relative to it and must stay inside it.

- Look before you change: read the files involved, search with grep and glob.
- Change files with edit_file (an exact text replacement) or write_file (new files, full \
rewrites). Check your work when you can: run the tests or the program with bash.
- Keep going until the task is done, then answer briefly: what you changed and anything the \
user still has to do. Use Markdown; point at code as path:line.
- Never invent file contents or command output. When a tool fails, read the error and adapt.
- When the user denies a call, do not retry it unchanged: take another way or ask.\
"""


def user_instructions_path() -> Path:
    return config_dir() / INSTRUCTIONS_FILE


def build_system_prompt(root: Path) -> str:
    """Reads the instruction files, so call it in a thread from async code."""
    parts = [BASE_PROMPT.format(system=platform.system() or "Unix", root=root)]
    for title, path in (
        ("Project instructions (AGENTS.md)", root / INSTRUCTIONS_FILE),
        ("The user's instructions", user_instructions_path()),
    ):
        text = _read_instructions(path)
        if text:
            parts.append(f"# {title}\n\n{text}")
    return "\n\n".join(parts)


def _read_instructions(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""  # no file (the usual case) or unreadable: no instructions
    if len(text) > MAX_INSTRUCTIONS:
        text = text[:MAX_INSTRUCTIONS] + f"\n[… cut at {MAX_INSTRUCTIONS} characters]"
    return text
