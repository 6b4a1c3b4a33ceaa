"""Claude Code's words in an agent file, as NeoCode's: its tool names and its model names.

A tool of Claude Code's with no NeoCode equivalent is kept apart (``Tools.missing``), so the
agent is never said to have it; ``Task`` is one for a subagent, which starts no subagent in
Claude Code either. An MCP tool keeps its name (``mcp__server__tool``; ``mcp__server__*`` and
``mcp__server`` stand for all of a server's), matched against the tools the session has when
the agent runs.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass

from neocode_tui.claude_tools import TWINS, our_name

TASK = "task"
ASK = "ask_user"
"""A subagent asks the user nothing, in Claude Code either."""
UNAVAILABLE = frozenset({
    "task", "agent", "websearch", "notebookedit", "notebookread", "askuserquestion", "lsp",
    "slashcommand", "enterplanmode", "todoread",
})
"""Claude Code's tools (lower case) with no equivalent for a subagent; the others are
``neocode_tui.claude_tools``'s."""
OURS = frozenset(twin.ours for twin in TWINS if twin.ours not in (TASK, ASK))
WHY_NOT = {"task": "a subagent starts no subagent", "agent": "a subagent starts no subagent"}
MODEL_ALIASES = {
    "sonnet": "claude-sonnet-4-5", "opus": "claude-opus-4-1", "haiku": "claude-haiku-4-5",
    "opusplan": "claude-opus-4-1", "sonnet[1m]": "claude-sonnet-4-5",
}
"""Claude Code's model aliases as the Anthropic API's model ids."""
CLAUDE_MODEL = re.compile(r"claude-[a-z0-9.-]+")
_ARGUMENT = re.compile(r"\(.*\)\s*$")


@dataclass(frozen=True)
class Tools:
    granted: tuple[str, ...]
    """Our names, and MCP patterns, in the order given."""
    missing: tuple[str, ...] = ()
    """The names as written that have no equivalent here."""

    def missing_words(self) -> str:
        """"WebSearch, Task (a subagent starts no subagent)"."""
        return ", ".join(
            f"{name} ({WHY_NOT[name.lower()]})" if name.lower() in WHY_NOT else name
            for name in self.missing)


def read_tools(names: Iterable[str]) -> Tools:
    """Tool names as an agent file gives them: Claude Code's (``Bash(git:*)`` is ``Bash``),
    ours, or MCP tools."""
    granted: list[str] = []
    missing: list[str] = []
    for written in names:
        word = _ARGUMENT.sub("", written).strip()
        if not word:
            continue
        ours = _ours(word)
        if ours is None:
            if word not in missing:
                missing.append(word)
        elif ours not in granted:
            granted.append(ours)
    return Tools(tuple(granted), tuple(missing))


def _ours(word: str) -> str | None:
    if word.startswith("mcp__") or word in OURS:
        return word
    return None if word.lower() in UNAVAILABLE else our_name(word)


def matching(pattern: str, names: Iterable[str]) -> list[str]:
    """The session's tools a granted name stands for: itself, or an MCP server's tools."""
    names = list(names)
    if pattern.startswith("mcp__") and pattern.count("__") == 1:
        pattern += "__*"
    if "*" in pattern:
        return [name for name in names if fnmatch.fnmatchcase(name, pattern)]
    return [pattern] if pattern in names else []


def anthropic_model(model: str) -> str | None:
    """The Anthropic model id an agent file's ``model`` names (an alias or a full id), if it
    names a Claude model."""
    lowered = model.strip().lower()
    if lowered in MODEL_ALIASES:
        return MODEL_ALIASES[lowered]
    return lowered if CLAUDE_MODEL.fullmatch(lowered) else None
