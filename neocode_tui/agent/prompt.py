"""The system prompt: who the agent is, where it works, and the user's standing instructions.

Instructions come from two files: ``AGENTS.md`` at the workspace root (the project's, the
same file other agents read) and ``AGENTS.md`` in the user's config folder (theirs, for
every project). The project's file comes from a folder nobody has vetted, so it is read
as the tools read: not through a symlink out of the workspace, only if it is a regular
file (a FIFO would hang the start), and only its first part. Keys in use are scrubbed
from both, since the prompt is saved and shown.
"""

from __future__ import annotations

import os
import platform
import stat
from collections.abc import Callable
from pathlib import Path

from neocode_tui.agent.workspace import PathOutsideWorkspace, Workspace
from neocode_tui.paths import config_dir
from neocode_tui.protected_files import INSTRUCTIONS_FILE

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


def user_instructions_path() -> Path:
    return config_dir() / INSTRUCTIONS_FILE


def build_system_prompt(root: Path, secrets: Callable[[str], str] = str) -> str:
    """Reads the instruction files, so call it in a thread from async code. ``secrets``
    (the run's holder) scrubs the instructions."""
    parts = [BASE_PROMPT.format(system=platform.system() or "Unix", root=root)]
    for title, text in (
        ("Project instructions (AGENTS.md)", _project_instructions(root)),
        ("The user's instructions", _user_instructions()),
    ):
        text = _cut(secrets(text).strip())
        if text:
            parts.append(f"# {title}\n\n{text}")
    return "\n\n".join(parts)


def _project_instructions(root: Path) -> str:
    workspace = Workspace(root)
    try:
        fd, _ = workspace.open_file(workspace.resolve(INSTRUCTIONS_FILE))
    except (OSError, PathOutsideWorkspace):
        return ""  # none (the usual case), unreadable, not a file, or a link out: no instructions
    return _read_head(fd)


def _user_instructions() -> str:
    """The user's own file may be a symlink (into their dotfiles, say): it is trusted."""
    try:
        fd = os.open(user_instructions_path(), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return ""
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return ""
    return _read_head(fd)


def _read_head(fd: int) -> str:
    """Enough of an open file to fill ``MAX_INSTRUCTIONS`` characters, and closes it."""
    try:
        with os.fdopen(fd, "rb") as handle:
            return handle.read(4 * MAX_INSTRUCTIONS + 1).decode("utf-8", "replace")
    except OSError:
        return ""


def _cut(text: str) -> str:
    """Cut after scrubbing, so no part of a key is left at the cut."""
    if len(text) > MAX_INSTRUCTIONS:
        text = text[:MAX_INSTRUCTIONS] + f"\n[… cut at {MAX_INSTRUCTIONS} characters]"
    return text
