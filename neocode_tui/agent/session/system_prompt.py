"""The system prompt: who the agent is, where it works, and the user's standing instructions.

The instruction files (the user's, the project's, a folder's, and what they import) are
``memory_files``' job; the skills listing is ``skills``'. Keys in use are scrubbed from
all of them, since the prompt is saved and shown.
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from pathlib import Path

from neocode_tui.agent.extensions import MAX_FILE, MemoryFiles

MAX_INSTRUCTIONS = MAX_FILE

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


PLAN_MODE = """\
# Plan mode

The user has switched on plan mode: only reading tools (read_file, list_dir, glob, grep) run; \
edits and commands are refused. Explore what you need, then hand over a concise, numbered \
plan with exit_plan_mode: the files to change and how, and how to check the result. Do not \
claim to have changed anything. The user decides whether the plan is carried out.\
"""
PLAN_LEFT = """\
# Plan mode is over

The user has left plan mode: carry out the plan you proposed, changing files and running \
commands as needed.\
"""


def build_system_prompt(
    root: Path, secrets: Callable[[str], str] = str, memory: MemoryFiles | None = None,
    skills: str = "",
) -> str:
    """Reads the instruction files, so call it in a thread from async code. ``secrets``
    (the run's holder) scrubs the instructions; ``memory`` records what was loaded (for
    /memory) and brings the folders' files that arrived before a compaction."""
    memory = memory if memory is not None else MemoryFiles(root, secrets)
    parts = [BASE_PROMPT.format(system=platform.system() or "Unix", root=root)]
    for title, text in (
        ("Project instructions (AGENTS.md)", memory.project()),
        ("The user's instructions", memory.user()),
        ("Instructions of the folders worked in", memory.arrived_section()),
    ):
        if text.strip():
            parts.append(f"# {title}\n\n{text.strip()}")
    if skills:
        parts.append(skills)
    return "\n\n".join(parts)
