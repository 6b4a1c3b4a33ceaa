"""The workspace's files that make a program start or change what is trusted: one list.

git runs ``.git/hooks`` and what ``.git/config`` names; NeoCode starts the servers of
``.mcp.json`` and the hooks of ``.neocode/hooks.json``, takes its settings from ``.env``
and its instructions from ``AGENTS.md`` (``CLAUDE.md``); Claude Code and other agents read commands,
sub-agents, skills and hook settings from ``.claude/`` and ``.agents/``; direnv runs
``.envrc``; most project tooling reads ``.env.*``. A write to any of them is a command
run later, so the same list serves three guards: a sandboxed command cannot change them
(``agent.sandbox``), a file tool's write to one always asks (``agent.approvals``), and
the ones trust gates grant nothing new once they change (``trust``).

Names compare case-insensitively (``.GIT/config`` is ``.git/config`` on macOS) and at any
depth (a submodule's ``.git``, the ``.mcp.json`` of a subfolder NeoCode may start in).
"""

from __future__ import annotations

import os
from pathlib import Path, PurePath

ENV_FILE = ".env"
MCP_FILE = ".mcp.json"
HOOKS_FILE = ".neocode/hooks.json"
INSTRUCTIONS_FILE = "AGENTS.md"
NEOCODE_SETTINGS = ".neocode/settings.json"
CLAUDE_SETTINGS = ".claude/settings.json"
"""Permission rules: a project's allow rules count only as the user trusted the file."""
FALLBACK_INSTRUCTIONS_FILE = "CLAUDE.md"
"""Read for a folder's instructions where it has no ``AGENTS.md``."""

GIT_FOLDER = ".git"
PROTECTED_FOLDERS = frozenset({GIT_FOLDER, ".neocode", ".claude", ".agents"})
"""Everything under a folder of these names (and a file of the name: a worktree's ``.git``)."""
PROTECTED_FILES = frozenset({MCP_FILE.casefold(), INSTRUCTIONS_FILE.casefold(),
                             FALLBACK_INSTRUCTIONS_FILE.casefold(), ".envrc", ENV_FILE})
"""Files of these names, and every ``.env.*``."""
TRUST_GATED = (ENV_FILE, MCP_FILE, HOOKS_FILE, NEOCODE_SETTINGS, CLAUDE_SETTINGS)
"""What a folder's trust lets grant power (settings, servers, hooks): each counts as
trusted only with the content it had when the user trusted the folder."""


def is_protected(relative: PurePath) -> bool:
    """Whether the path ``relative`` (to the workspace root) is one of the protected."""
    parts = [part.casefold() for part in relative.parts]
    if PROTECTED_FOLDERS.intersection(parts):
        return True
    return bool(parts) and protected_name(parts[-1])


def protected_name(name: str, *, folder: bool = False) -> bool:
    """Whether an entry named ``name`` is protected wherever it is. A folder with a file's
    name is not (a virtualenv made as ``.env`` is nobody's settings)."""
    name = name.casefold()
    if name in PROTECTED_FOLDERS:
        return True
    return not folder and (name in PROTECTED_FILES or name.startswith(ENV_FILE + "."))


def protected_entries(folder: Path) -> list[str]:
    """The names of ``folder``'s own entries that are protected (none if it cannot be read)."""
    try:
        with os.scandir(folder) as entries:
            return sorted(
                entry.name for entry in entries
                if protected_name(entry.name, folder=entry.is_dir(follow_symlinks=False))
            )
    except OSError:
        return []
