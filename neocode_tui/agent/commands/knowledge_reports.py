"""``/skills`` and ``/memory`` in words: what the model may load and what it reads."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from neocode_tui.agent.tools.skill import UseSkill
from neocode_tui.terminal_text import visible

if TYPE_CHECKING:
    from neocode_tui.agent.commands.host import CommandHost
    from neocode_tui.agent.extensions import MemoryFile
    from neocode_tui.agent.extensions.skill_front import SkillFront


MEMORY_PATH_WIDTH = 44
"""A path's room in /memory's rows, so that one file is one row at 80 columns."""


def _home(path: str) -> str:
    home = str(Path.home())
    return "~" + path[len(home):] if path.startswith(home + "/") else path


async def skills_report(session: CommandHost) -> str:
    tool = session.loop.tools.get("skill")
    if not isinstance(tool, UseSkill):
        return "skills are not available in this session"
    catalogue = await asyncio.to_thread(tool.catalogue, session.loop.workspace)
    lines = []
    for skill in catalogue.skills.values():
        where = "yours" if skill.origin == "user" else "this workspace's"
        lines.append(f"  {skill.name}  ({where}: {_home(skill.where)})")
        lines.append(f"      {_shortened(skill.description, 72)}")
        lines += [f"      {line}" for line in _how_run(skill.front)]
    if not lines:
        lines = ["no skills yet: a skill is a folder with a SKILL.md (name and description in "
                 "its front matter) in .neocode/skills/, .claude/skills/, .agents/skills/, "
                 "~/.agents/skills/ or the skills/ folder of your config"]
    else:
        lines = ["skills (the model sees names and descriptions; you run one as /name ARGS):", "", *lines]
    if catalogue.problems:
        lines += ["", "not used:", *(f"  {problem}" for problem in catalogue.problems)]
    return visible("\n".join(lines))


async def loaded_memory(session: CommandHost) -> list[MemoryFile]:
    """The instruction files loaded, building the system prompt if no request has yet."""
    if session.loop.system_prompt is None:
        session.loop.system_prompt = await asyncio.to_thread(session.loop.built_system_prompt)
    return list(session.loop.memory.files)


def memory_report(files: list[MemoryFile]) -> str:
    if not files:
        return ("no instruction files loaded: AGENTS.md (or CLAUDE.md) in the workspace, in "
                "a folder the agent works in, or AGENTS.md in your config folder for every project")
    shown = [_start_cut(_home(file.shown), MEMORY_PATH_WIDTH) for file in files]
    width = max(map(len, shown))
    lines = ["instruction files the model reads (a folder's joined when work reached it):", ""]
    for number, (file, path) in enumerate(zip(files, shown, strict=True), 1):
        lines.append(f"  {number:>2}  {file.layer:<8} {path:<{width}}  {file.size:>7,} bytes")
    lines += ["", "/memory N opens one in your $EDITOR"]
    return visible("\n".join(lines))


def _how_run(front: SkillFront) -> list[str]:
    """Who may run the skill, when not both, and the front matter fields with no effect."""
    lines = []
    if not front.model_invocable:
        lines.append(f"only you run it (/{front.name}): disable-model-invocation")
    if not front.user_invocable:
        lines.append("only the model loads it: user-invocable is false")
    if front.ignored:
        lines.append(f"no effect here: {', '.join(front.ignored)} (docs/extending.md)")
    return lines


def _start_cut(text: str, width: int) -> str:
    """``text`` cut from its start, where a path says least: ``…/cli/AGENTS.md``."""
    return text if len(text) <= width else "…" + text[len(text) - width + 1:]


def _shortened(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
