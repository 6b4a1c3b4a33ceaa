"""Subagent definitions: Markdown files with front matter, in Claude Code's format.

A file's body is the child's system prompt; its front matter gives ``name``, ``description``
(what the parent model reads to choose it), ``tools`` and ``disallowedTools`` (a comma list
or a YAML list, Claude Code's names or ours: ``claude_names``), ``maxTurns`` and ``model``
(Claude Code's alias or model id, or a profile of the user's; ``inherit`` is the parent's)
and ``skills`` (skills whose whole instructions the child starts with). The other fields
Claude Code has are named per agent in ``/agents`` as having no effect here.
They come from the user (``agents/`` in the config folder, ``~/.claude/agents/``) and the
workspace (``.neocode/agents/``, ``.claude/agents/``), each folder read with its subfolders.

The user is trusted and the repository is not. A workspace agent is a prompt and a list of
tools to narrow, never to widen: its child asks the user's approvals like the parent, it may
not take the name of a user's agent or the built-in ``explore``, and its ``model`` names a
profile only in a folder the user trusts (a profile changes where requests go and which key
they carry; a Claude model of the session's own provider does not). Names and descriptions
are one short line each, so the task tool's definition stays small and a screen shows them
escaped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from neocode_tui.agent.delegation.claude_names import Tools, anthropic_model, read_tools
from neocode_tui.agent.extensions import FRONT_MATTER, markdown_files, read_prompt_file
from neocode_tui.deferred import lazy
from neocode_tui.paths import config_dir
from neocode_tui.trust import NOT_TRUSTED, is_trusted

if TYPE_CHECKING:
    import yaml
else:  # after the first frame, or on first use (neocode_tui/deferred.py)
    yaml = lazy("yaml")

AGENTS_CAP = 50
"""Agent files read from one folder."""
LISTED_CAP = 20
"""Agents named in the task tool's description (every request carries it)."""
DESCRIPTION_CAP = 120
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
EXPLORE = "explore"
EXPLORE_DESCRIPTION = "Read-only research: reads, lists and searches files and runs read-only commands"
EXPLORE_TOOLS = ("read_file", "list_dir", "glob", "grep", "bash")
EXPLORE_PROMPT = (
    "You are a research assistant working for another agent. Explore the workspace to answer "
    "the task you are given: read files, list folders, search with glob and grep, and run "
    "read-only commands. You cannot change anything. Be thorough but quick, then give a "
    "concise, self-contained answer with the file paths and facts the other agent needs: "
    "it sees only your final message."
)
IGNORED = ("permissionMode", "mcpServers", "hooks", "memory", "background", "effort",
           "initialPrompt", "color")
"""Claude Code's agent fields that have no effect here (docs/extending.md says why, each)."""

Source = Literal["built-in", "user", "project"]


@dataclass(frozen=True)
class AgentFile:
    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None
    """Our tool names (and MCP patterns); None: every tool the parent has but ``task``."""
    model: str = ""
    """As the file gives it, honoured when ``model_allowed``; "" the parent's."""
    source: Source = "built-in"
    path: Path | None = None
    model_allowed: bool = True
    missing: tuple[str, ...] = ()
    """Tools the file lists, with no equivalent here: never granted, said in /agents and at the
    agent's first run."""
    missing_words: str = ""
    denied: tuple[str, ...] = ()
    """``disallowedTools``, in our names: taken away from what it would have."""
    max_turns: int | None = None
    ignored: tuple[str, ...] = ()
    isolation: Literal["", "worktree"] = ""
    """``worktree``: each run works in a git worktree of its own (Claude Code's field)."""
    skills: tuple[str, ...] = ()
    """Skills preloaded into its system prompt, as the file names them."""


EXPLORER = AgentFile(EXPLORE, EXPLORE_DESCRIPTION, EXPLORE_PROMPT, EXPLORE_TOOLS)


@dataclass
class AgentCatalog:
    agents: dict[str, AgentFile] = field(default_factory=lambda: {EXPLORE: EXPLORER})
    problems: list[str] = field(default_factory=list)

    def listing(self) -> str:
        """The agents as the model reads them: one short line each."""
        chosen = list(self.agents.values())[:LISTED_CAP]
        return "\n".join(f"- {agent.name}: {agent.description}" for agent in chosen)


def agent_folders(workspace: Path, home: Path | None = None) -> list[tuple[Path, Source]]:
    """(folder, whose it is), the user's first: a name is given out in this order."""
    home = home if home is not None else Path.home()
    return [
        (config_dir() / "agents", "user"),
        (home / ".claude" / "agents", "user"),
        (workspace / ".neocode" / "agents", "project"),
        (workspace / ".claude" / "agents", "project"),
    ]


def load_agents(workspace: Path, home: Path | None = None) -> AgentCatalog:
    workspace = workspace.resolve()
    catalog = AgentCatalog()
    trusted = is_trusted(workspace)
    for folder, source in agent_folders(workspace, home):
        for path in _files(folder, catalog.problems):
            if source == "project" and not path.resolve().is_relative_to(workspace):
                catalog.problems.append(f"{path}: not used, it links outside the workspace")
                continue
            agent = _read(path, source, catalog.problems)
            if agent is None:
                continue
            taken = catalog.agents.get(agent.name)
            if taken is not None:
                if not (taken.source == source == "user"):  # a later user folder: quietly second
                    where = taken.path or "the built-in agent"
                    catalog.problems.append(f"{path}: not used: {agent.name!r} is taken by {where}")
                continue
            if source == "project" and agent.model and not trusted and anthropic_model(agent.model) is None:
                catalog.problems.append(
                    f"{path}: model {agent.model!r} not used, {NOT_TRUSTED}: the agent uses the "
                    "session's model"
                )
                agent = replace(agent, model_allowed=False)
            catalog.agents[agent.name] = agent
    return catalog


def _files(folder: Path, problems: list[str]) -> list[Path]:
    return markdown_files(folder, problems, cap=AGENTS_CAP, noun="agents", nested=True)


def _read(path: Path, source: Source, problems: list[str]) -> AgentFile | None:
    text = read_prompt_file(path, problems)
    if text is None:
        return None
    match = FRONT_MATTER.match(text)
    if not match:
        problems.append(f"{path}: no front matter (--- name: ... description: ... ---)")
        return None
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        problems.append(f"{path}: front matter is not valid YAML ({_line(str(exc), 80)})")
        return None
    if not isinstance(data, dict):
        problems.append(f"{path}: front matter is not a mapping")
        return None
    fields = {key: _scalar(data.get(key)) for key in ("name", "description", "model")}
    wrong = [key for key, value in fields.items() if value is None and data.get(key) is not None]
    if wrong:
        problems.append(f"{path}: {', '.join(wrong)} must be text")
        return None
    name = _line(fields.get("name") or path.stem, 60).lower()
    if not NAME.fullmatch(name):
        problems.append(f"{path}: {name!r} is not a usable agent name (a-z, 0-9, - and _)")
        return None
    description = _line(fields.get("description") or "", DESCRIPTION_CAP)
    prompt = text[match.end():].strip()
    if not description or not prompt:
        problems.append(f"{path}: an agent needs a description and a prompt")
        return None
    tools = _tools(data.get("tools"), path, problems)
    denied = _tools(data.get("disallowedTools"), path, problems)
    model = _line(fields.get("model") or "", 60)
    model = "" if model.lower() == "inherit" else model
    missing = tools.missing if tools is not None else ()
    isolation = _scalar(data.get("isolation")) or ""
    if isolation not in ("", "worktree"):
        problems.append(f"{path}: isolation {isolation!r} is not one NeoCode knows (only worktree); "
                        "the agent works in the workspace itself")
        isolation = ""
    return AgentFile(
        name, description, prompt, tools.granted if tools is not None else None, model, source, path,
        missing=missing, missing_words=tools.missing_words() if tools is not None else "",
        denied=denied.granted if denied is not None else (), max_turns=_turns(data.get("maxTurns")),
        ignored=tuple(key for key in IGNORED if key in data), skills=_names(data.get("skills")),
        isolation="worktree" if isolation == "worktree" else "",
    )


def _scalar(value: object) -> str | None:
    """A front matter value as text; None for a list or mapping, which is never turned into
    text (YAML aliases can make a small file stand for a structure too large to print)."""
    if isinstance(value, str | int | float | bool):
        return str(value)
    return None


def _tools(value: object, path: Path, problems: list[str]) -> Tools | None:
    if value is None or value == "":
        return None
    tools = read_tools(_listed(value))
    if not tools.granted and not tools.missing:
        problems.append(f"{path}: tools lists no tool; the agent gets none")
    return tools


def _names(value: object) -> tuple[str, ...]:
    """Each name once, one short line each."""
    return tuple(dict.fromkeys(filter(None, (_line(name, 64) for name in _listed(value)))))


def _listed(value: object) -> list[str]:
    """A comma list or a YAML list, as its items' text."""
    items = value if isinstance(value, list) else (_scalar(value) or "").split(",")
    return [_scalar(item) or "" for item in items]


def _turns(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _line(text: str, length: int) -> str:
    """The first line, printable, cut to ``length``."""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    line = "".join(ch if ch.isprintable() else "?" for ch in line)
    return line if len(line) <= length else line[: length - 1] + "…"


def agents_text(catalog: AgentCatalog) -> str:
    """``/agents``: each agent, where it comes from and what it may use; then the files not used."""
    lines = []
    for agent in catalog.agents.values():
        where = f"{agent.source}, {agent.path}" if agent.path else agent.source
        tools = ", ".join(agent.tools) if agent.tools is not None else "the session's tools"
        if agent.denied:
            tools += f" but {', '.join(agent.denied)}"
        model = agent.model if agent.model and agent.model_allowed else "the session's model"
        lines += [f"{agent.name} ({where})", f"  {agent.description}", f"  tools: {tools} · model: {model}"]
        if agent.isolation:
            lines.append("  works in a git worktree of its own (isolation: worktree)")
        if agent.skills:
            lines.append(f"  skills preloaded: {', '.join(agent.skills)}")
        if agent.missing:
            lines.append(f"  not granted, no equivalent here: {agent.missing_words}")
        if agent.ignored:
            lines.append(f"  no effect here: {', '.join(agent.ignored)} (docs/extending.md)")
    if catalog.problems:
        lines += ["", "Not used:", *(f"  {problem}" for problem in catalog.problems)]
    lines += ["", "New or changed agent files are read when the next session starts."]
    return "\n".join(lines)
