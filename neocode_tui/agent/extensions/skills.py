"""Skills (the Agent Skills format): folders of instructions the model loads when it needs them.

A skill is a folder with a ``SKILL.md`` whose front matter gives its ``name`` and
``description``. The model is shown each skill's name and description only (bounded, and
read once, so the listing is the same bytes at every request of a session); its body
arrives when the model calls ``skill(name)``, with the list of the skill's other files,
which ``read_file`` may then read even where the skill lives outside the workspace.

The user's skills (their config folder's ``skills/``, ``~/.claude/skills``,
``~/.agents/skills``) are found first, so a workspace skill never takes the name of one of
theirs. A skill the front matter keeps from the model (``disable-model-invocation``) is not
in its listing and ``skill`` does not load it; every skill the user may invoke is also a
slash command (``skill_commands``). Loading a skill, either way, opens its folder to
``read_file`` and binds it read-only into the sandbox, so its bundled scripts run. A workspace's skills
are the repository's words: they are read as the tools read (no symlink out of the
workspace, regular files only, bounded), and a skill runs nothing by itself: what it asks
the model to run goes through the same approvals and folder trust as anything else (its
``allowed-tools`` front matter grants nothing). A skill whose ``SKILL.md`` a deny rule keeps
from the model (``Workspace.hidden``) is not offered: its description is its content too.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from neocode_tui.agent.extensions.custom_commands import FRONT_MATTER, CustomCommand, CustomCommands, load_commands
from neocode_tui.agent.extensions.skill_front import SkillFront, read_front
from neocode_tui.agent.workspace import Hidden, PathOutsideWorkspace, Workspace, printable_name, withheld
from neocode_tui.deferred import lazy
from neocode_tui.paths import config_dir

if TYPE_CHECKING:
    import yaml
else:  # after the first frame, or on first use (neocode_tui/deferred.py)
    yaml = lazy("yaml")

SKILL_FILE = "SKILL.md"
MAX_SKILL_FILE = 256_000
MAX_SKILLS = 100
MAX_LISTING = 12_000
"""Characters of the listing in the system prompt; skills past it are named only in /skills."""
MAX_FILES = 200
MAX_DEPTH = 4
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
WORKSPACE_FOLDERS = (".neocode/skills", ".claude/skills", ".agents/skills")

Origin = Literal["user", "workspace"]


@dataclass(frozen=True)
class Skill:
    front: SkillFront
    folder: Path
    """Resolved: the folder read_file may read once the skill is loaded."""
    where: str
    """The folder it was found in, as /skills shows it."""
    origin: Origin
    body: str = ""
    """SKILL.md after its front matter, as read with it (``skill_body`` reads it anew)."""

    @property
    def name(self) -> str:
        return self.front.name

    @property
    def description(self) -> str:
        return self.front.description


@dataclass
class SkillCatalogue:
    skills: dict[str, Skill] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def listing(self) -> str:
        """The system prompt's section: names and descriptions, bounded."""
        listed = [skill for skill in self.skills.values() if skill.front.model_invocable]
        if not listed:
            return ""
        lines = [
            "# Skills",
            "",
            "Skills are instructions for particular tasks. When a task matches a skill's "
            "description, call the skill tool with its name first to read it.",
            "",
        ]
        size = sum(map(len, lines))
        for skill in listed:
            line = f"- {skill.name}: {skill.description}"
            if size + len(line) > MAX_LISTING:
                lines.append(f"- … {len(listed) - len(lines) + 4} more (the user's /skills lists them)")
                break
            lines.append(line)
            size += len(line) + 1
        return "\n".join(lines)


def skill_folders(root: Path, home: Path | None = None) -> list[tuple[Path, Origin]]:
    """Where skills are looked for, the user's first (their names win)."""
    home = home if home is not None else Path.home()
    return [
        (config_dir() / "skills", "user"),
        (home / ".claude" / "skills", "user"),
        (home / ".agents" / "skills", "user"),
        *((root / folder, "workspace") for folder in WORKSPACE_FOLDERS),
    ]


def find_skills(root: Path, home: Path | None = None,
                hidden: Hidden | None = None) -> SkillCatalogue:
    """Every usable skill; what could not be used is a problem line, never a raise.
    ``hidden``: the session's check of what may reach the model."""
    catalogue = SkillCatalogue()
    workspace = Workspace(root)
    hidden = hidden if hidden is not None else workspace.hidden
    for base, origin in skill_folders(workspace.root, home):
        for folder in _subfolders(base, workspace if origin == "workspace" else None, catalogue):
            if len(catalogue.skills) >= MAX_SKILLS:
                catalogue.problems.append(f"{base}: only the first {MAX_SKILLS} skills are used")
                return catalogue
            where = base / folder.name
            shown = where.relative_to(workspace.root).as_posix() if origin == "workspace" else str(where)
            if why := hidden(folder / SKILL_FILE):
                catalogue.problems.append(f"{shown}: not used, {withheld(f'{shown}/{SKILL_FILE}', why)}")
                continue
            skill = _read_skill(folder, shown, origin, catalogue.problems)
            if skill is None:
                continue
            taken = catalogue.skills.get(skill.name)
            if taken is not None:
                catalogue.problems.append(
                    f"{folder}: not used, the skill {skill.name!r} is already {taken.folder}")
                continue
            catalogue.skills[skill.name] = skill
    return catalogue


def _subfolders(base: Path, workspace: Workspace | None, catalogue: SkillCatalogue) -> list[Path]:
    """The skill folders in ``base``, resolved; a workspace's must stay inside it."""
    try:
        entries = sorted(os.scandir(base), key=lambda entry: entry.name)
    except OSError:
        return []
    folders = []
    for entry in entries[: MAX_SKILLS * 2]:
        path = Path(entry.path)
        try:
            resolved = workspace.resolve(str(path)) if workspace is not None else path.resolve()
        except PathOutsideWorkspace:
            catalogue.problems.append(f"{path}: not used, it links outside the workspace")
            continue
        if resolved.is_dir():
            folders.append(resolved)
    return folders


_READ: dict[tuple[Path, str, str, int, int], tuple[Skill | None, tuple[str, ...]]] = {}
"""Skills read so far, by their file's size and time: a folder read again (completion reads
them at each "/") parses only what changed, since YAML is slow to parse."""
READ_CAP = 1_000


def _read_skill(folder: Path, where: str, origin: Origin, problems: list[str]) -> Skill | None:
    try:
        status = os.stat(folder / SKILL_FILE)
    except OSError:
        return None
    key = (folder, where, origin, status.st_mtime_ns, status.st_size)
    if key not in _READ:
        if len(_READ) >= READ_CAP:
            _READ.clear()
        found: list[str] = []
        _READ[key] = (_parse_skill(folder, where, origin, found), tuple(found))
    skill, said = _READ[key]
    problems += said
    return skill


def _parse_skill(folder: Path, where: str, origin: Origin, problems: list[str]) -> Skill | None:
    text = read_skill_file(folder)
    if text is None:
        return None  # a folder without a SKILL.md is no skill (nor a problem)
    match = FRONT_MATTER.match(text)
    data: object = {}
    if match:
        try:
            data = yaml.safe_load(match.group(1))
        except yaml.YAMLError:
            problems.append(f"{where}/{SKILL_FILE}: the front matter is not valid YAML "
                            "(a description with ': ' in it needs quotes)")
            return None
    data = {} if data is None else data
    if not isinstance(data, dict):
        problems.append(f"{where}/{SKILL_FILE}: the front matter is not a mapping of fields")
        return None
    body = text[match.end():] if match else text
    front = read_front(data, folder.name, body)
    if not NAME.fullmatch(front.name):
        problems.append(f"{where}/{SKILL_FILE}: the name {printable_name(front.name)!r} is not lower-case "
                        "letters, digits and hyphens (64 at most)")
        return None
    if not front.description:
        problems.append(f"{where}/{SKILL_FILE}: the description is missing")
        return None
    return Skill(front, folder, where, origin, body.strip())


def read_skill_file(folder: Path, relative: str = SKILL_FILE) -> str | None:
    """A file of a skill, opened without following a symlink inside the skill's folder;
    None when it is missing, not a regular file or too large."""
    skill = Workspace(folder)
    try:
        fd, status = skill.open_file(skill.resolve(relative))
    except (OSError, PathOutsideWorkspace):
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_SKILL_FILE:
            return None
        raw = handle.read(MAX_SKILL_FILE + 1)
    return raw[:MAX_SKILL_FILE].decode("utf-8", "replace").lstrip("\ufeff")


def skill_body(skill: Skill) -> str:
    """SKILL.md without its front matter."""
    text = read_skill_file(skill.folder) or ""
    match = FRONT_MATTER.match(text)
    return (text[match.end():] if match else text).strip()


def skill_files(skill: Skill) -> tuple[list[str], int]:
    """The skill's other files (relative, sorted), and how many more were not listed.
    Symlinks are not followed: a link is no file of the skill's."""
    found: list[str] = []
    more = 0

    def walk(folder: Path, depth: int) -> None:
        nonlocal more
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            return
        for entry in entries:
            if entry.is_symlink() or entry.name.startswith(".git"):
                continue
            path = Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                if depth < MAX_DEPTH:
                    walk(path, depth + 1)
            elif entry.is_file(follow_symlinks=False):
                relative = path.relative_to(skill.folder).as_posix()
                if relative == SKILL_FILE:
                    continue
                if len(found) < MAX_FILES:
                    found.append(printable_name(relative))
                else:
                    more += 1

    walk(skill.folder, 1)
    return found, more


def skill_commands(catalogue: SkillCatalogue) -> list[CustomCommand]:
    """The skills the user may run as ``/name ARGS``: their bodies as prompts, read now."""
    commands = []
    for skill in catalogue.skills.values():
        if not skill.front.user_invocable:
            continue
        commands.append(CustomCommand(
            skill.name, _one_line(skill.description), skill.front.argument_hint, skill.body or skill.description,
            skill.folder / SKILL_FILE, "user" if skill.origin == "user" else "project",
            skill.front.arguments, skill=skill.folder,
        ))
    return commands


def _one_line(text: str, length: int = 100) -> str:
    return text if len(text) <= length else text[: length - 1] + "…"


def commands_and_skills(root: Path, reserved: Iterable[str], hidden: Hidden) -> CustomCommands:
    """The custom commands with the skills the user may run among them."""
    return load_commands(root, reserved, skills=skill_commands(find_skills(root, hidden=hidden)))
