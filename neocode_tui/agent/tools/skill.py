"""``skill``: the model loads a skill's instructions by name, when a task needs them.

The catalogue is read once per session (the first prompt), so what the model was told
the skills are and what ``skill`` finds are the same. Loading a skill opens its folder to
``read_file`` (``SkillFolders``) and to nothing else: a skill's scripts and references may
live in the user's home, outside the workspace, and the rest of the home stays closed.
A subagent whose file lists ``skills`` starts with them loaded the same way (``preload``).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from neocode_tui.agent.extensions import SKILL_FILE, SkillCatalogue, find_skills, skill_body, skill_files
from neocode_tui.agent.tools.base import Deadline, FileTool, ToolError, ToolOutput
from neocode_tui.agent.workspace import PathOutsideWorkspace, Workspace, withheld


class SkillFolders:
    """The folders of the skills in use (loaded by the model, or run by the user), which
    read_file may read outside the workspace (through the same no-symlink opens, each
    folder its own root) and commands find bound read-only in the sandbox."""

    def __init__(self) -> None:
        self._folders: dict[Path, Workspace] = {}

    def add(self, folder: Path) -> None:
        self._folders.setdefault(folder, Workspace(folder))

    def outside(self, root: Path) -> tuple[Path, ...]:
        """The folders that are not in ``root`` (those in it the sandbox shows already)."""
        return tuple(folder for folder in self._folders if not folder.is_relative_to(root))

    def find(self, path: str) -> tuple[Workspace, Path] | None:
        """The skill folder holding ``path`` and its resolved form, if any does."""
        for folder in self._folders.values():
            try:
                return folder, folder.resolve(path)
            except PathOutsideWorkspace:
                continue
        return None


class SkillArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The skill's name, as listed under Skills.")


class UseSkill(FileTool[SkillArgs]):
    name = "skill"
    description = (
        "Load a skill's instructions by name (the skills are listed in the system prompt), "
        "with the list of its other files, which read_file can then read."
    )
    kind = "read"
    args_model = SkillArgs

    def __init__(self, folders: SkillFolders) -> None:
        self.folders = folders
        self._catalogue: SkillCatalogue | None = None
        self._lock = threading.Lock()

    def catalogue(self, workspace: Workspace) -> SkillCatalogue:
        """The skills, found on the first call (in a thread: it reads folders)."""
        with self._lock:
            if self._catalogue is None:
                self._catalogue = find_skills(workspace.root, hidden=workspace.hidden)
            return self._catalogue

    def summary(self, args: Mapping[str, Any]) -> str:
        return f"load skill {args.get('name', '')}"

    def run_sync(self, args: SkillArgs, workspace: Workspace, deadline: Deadline) -> ToolOutput:
        skills = self.catalogue(workspace).skills
        skill = skills.get(args.name.strip())
        if skill is None or not skill.front.model_invocable:
            known = ", ".join(name for name, found in skills.items() if found.front.model_invocable)
            also = f" ({skill.name} is run by the user only, as /{skill.name})" if skill else ""
            raise ToolError(f"there is no skill named {args.name!r} for you to load{also}; "
                            f"the skills are: {known or 'none'}")
        if why := workspace.hidden(skill.folder / SKILL_FILE):  # a rule added since
            raise ToolError(withheld(f"the skill {skill.name}", why))
        self.folders.add(skill.folder)
        inside = skill.folder.is_relative_to(workspace.root)
        where = workspace.relative(skill.folder) if inside else str(skill.folder)
        files, more = skill_files(skill)
        listed = "\n".join(f"- {where}/{name}" for name in files)
        if more:
            listed += f"\n- … {more} more files not listed"
        extra = f"\n\n## Files of this skill (read them with read_file)\n\n{listed}" if files else ""
        body = skill_body(skill).replace("${CLAUDE_SKILL_DIR}", str(skill.folder))
        return ToolOutput(f"# Skill {skill.name} ({where})\n\n{body}{extra}")

    def preload(self, names: tuple[str, ...], workspace: Workspace) -> tuple[list[str], list[str]]:
        """Each named skill as ``skill`` loads it, and why each one that could not be was not."""
        loaded, problems = [], []
        for name in names:
            try:
                loaded.append(self.run_sync(SkillArgs(name=name), workspace, Deadline()).text)
            except ToolError as exc:
                problems.append(str(exc).split(";")[0])
        return loaded, problems
