"""Custom slash commands: a Markdown file is a prompt the user runs as ``/name``.

The format is Claude Code's, so a team's existing commands work unchanged: the file's body is
the prompt, with Claude Code's substitutions (``arguments``: ``$ARGUMENTS``, ``$0``...), and
optional YAML front matter gives ``description``, ``argument-hint`` and ``arguments``. A file
in a subfolder is ``/folder:name``, and answers to its own name too (``/tdd-red`` for
``tdd/tdd-red.md``) where no other command has it. They come from the user (``commands/`` in
the config folder, ``~/.claude/commands/``) and from the workspace (``.neocode/commands/``,
``.claude/commands/``); skills the user may invoke join them (``skills.skill_commands``),
each before the command files of its owner, as Claude Code lets a skill win over a command.

The user is trusted and the repository is not, so a name the user gave is the user's: a
workspace file of the same name never replaces it (typing ``/review`` must run what the user
wrote, not what a cloned repository put there); it stays usable as ``/project:review``. Every
command says where it came from, so both show up in completion and help, told apart.

A command is only a prompt, it runs nothing by itself, so a workspace's commands are usable in
a folder that is not trusted; but none may take the name of a built-in command, and a
workspace file may not lead (by a link) outside the workspace, or running it could send a
private file to the model. Its description is one line (a screen shows its controls escaped).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from neocode_tui.agent.extensions.arguments import argument_names, substitute, takes_arguments
from neocode_tui.deferred import lazy
from neocode_tui.paths import config_dir

if TYPE_CHECKING:
    import yaml
else:  # after the first frame, or on first use (neocode_tui/deferred.py)
    yaml = lazy("yaml")

FILE_CAP = 100_000
"""Bytes of one command file: a prompt, not a document."""
COMMANDS_CAP = 500
"""Command files read from one folder."""
FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE)
NAME = re.compile(r"[\w.-]+(?::[\w.-]+)*")
PROJECT = "project"
"""The prefix that keeps a workspace command reachable when the user has one of its name."""

Source = Literal["user", "project"]


class _FrontMatter(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, defer_build=True)

    description: str = ""
    argument_hint: str = Field("", alias="argument-hint")


class PromptCommand(Protocol):
    """A slash command that stands for a prompt: a custom one, or an MCP server's."""

    @property
    def name(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def argument_hint(self) -> str: ...

    @property
    def takes_arguments(self) -> bool: ...


@dataclass(frozen=True)
class CustomCommand:
    name: str
    """Without the slash: ``review`` or ``git:commit``."""
    description: str
    argument_hint: str
    template: str
    path: Path
    source: Source = "user"
    names: tuple[str, ...] = ()
    """The front matter's ``arguments``: ``$name`` is the word at its position."""
    folder: str = ""
    """The subfolder it is in (``tdd`` for ``tdd/tdd-red.md``), shown beside where it came from."""
    skill: Path | None = None
    """A skill's folder: the command is the skill, run by the user."""

    @property
    def label(self) -> str:
        """The description with where the command came from: "Review a file (project)",
        "Red phase (project:tdd)", "Deploy (user skill)"."""
        where = f"{self.source}:{self.folder}" if self.folder else self.source
        return f"{self.description} ({where}{' skill' if self.skill else ''})"

    @property
    def takes_arguments(self) -> bool:
        return bool(self.argument_hint or takes_arguments(self.template, self.names))

    def expand(self, arguments: str, variables: Mapping[str, str] | None = None) -> str:
        """The prompt with its placeholders filled (``arguments.substitute``); words given to
        a prompt without ``$ARGUMENTS`` are added at its end rather than silently lost."""
        known = dict(variables or {})
        if self.skill is not None:
            known["CLAUDE_SKILL_DIR"] = str(self.skill)
        return substitute(self.template, arguments, names=self.names, variables=known)


@dataclass
class CustomCommands:
    commands: dict[str, CustomCommand] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    """One line per file that could not be used, each naming the file."""
    short: dict[str, str] = field(default_factory=dict)
    """A subfolder's command by its file name alone (``tdd-red``: ``tdd:tdd-red``)."""

    def named(self, text: str) -> tuple[CustomCommand, str] | None:
        """The custom command ``text`` runs when it is ``/name args``, with the arguments."""
        stripped = text.strip()
        if not stripped.startswith("/"):
            return None
        name, _, arguments = stripped[1:].partition(" ")
        name = name.lower()
        command = self.commands.get(self.short.get(name, name))
        if command is None or "\n" in name:
            return None
        return command, arguments

    def listed(self) -> list[CustomCommand]:
        """Every command once, a subfolder's under its short name where it has one."""
        by_long = {long: short for short, long in self.short.items()}
        return [replace(command, name=by_long.get(command.name, command.name))
                for command in self.commands.values()]

    def expand(self, text: str) -> str | None:
        """The prompt ``text`` stands for when it is ``/name args`` of a custom command."""
        found = self.named(text)
        return None if found is None else found[0].expand(found[1])


def command_folders(workspace: Path, home: Path | None = None) -> list[tuple[Path, Source]]:
    """(folder, whose it is), in the order a name is given out: the user's first."""
    home = home if home is not None else Path.home()
    return [
        (config_dir() / "commands", "user"),
        (home / ".claude" / "commands", "user"),
        (workspace / ".neocode" / "commands", "project"),
        (workspace / ".claude" / "commands", "project"),
    ]


def load_commands(
    workspace: Path, reserved: Iterable[str] = (), home: Path | None = None,
    skills: Sequence[CustomCommand] = (),
) -> CustomCommands:
    """Every usable command file; ``reserved`` are the built-in names none may take;
    ``skills``: those the user may invoke, each before its owner's command files."""
    workspace = workspace.resolve()
    reserved = {name.lower() for name in reserved}
    found = CustomCommands()
    named: set[tuple[Source, str]] = set()
    """(owner, name as the file gives it): a later folder of the same owner does not count."""
    for folder, source in command_folders(workspace, home):
        for skill in skills:
            if skill.source == source and (source, skill.name) not in named:
                named.add((source, skill.name))
                _add_skill(found, skill, reserved)
        for path in _command_files(folder, found.problems):
            name = ":".join(path.relative_to(folder).with_suffix("").parts).lower()
            if (source, name) in named:
                continue
            named.add((source, name))
            if not NAME.fullmatch(name):
                found.problems.append(f"{path}: /{name} is not a usable command name (no spaces)")
            elif name in reserved:
                found.problems.append(f"{path}: /{name} is a built-in command; rename the file")
            elif source == "project" and not path.resolve().is_relative_to(workspace):
                found.problems.append(f"{path}: not used, it links outside the workspace")
            else:
                _add(found, path, name, source, ":".join(path.relative_to(folder).parent.parts).lower())
    _give_short_names(found, reserved)
    return found


def _add_skill(found: CustomCommands, skill: CustomCommand, reserved: set[str]) -> None:
    if skill.name in reserved:
        found.problems.append(f"{skill.path}: the skill /{skill.name} has a built-in command's name; "
                              "it is not a slash command (the model may still load it)")
        return
    name = skill.name
    if name in found.commands:  # the user's own: the workspace's goes under project:
        name = f"{PROJECT}:{name}"
    if name in found.commands:
        found.problems.append(f"{skill.path}: not used: /{name} is taken by {found.commands[name].path}")
        return
    found.commands[name] = replace(skill, name=name)


def _give_short_names(found: CustomCommands, reserved: set[str]) -> None:
    """A subfolder's command answers to its file name where no command has it and no other
    subfolder's file has the same name."""
    candidates: dict[str, list[str]] = {}
    for name, command in found.commands.items():
        if command.folder:
            candidates.setdefault(name.rsplit(":", 1)[-1], []).append(name)
    for short, names in candidates.items():
        if len(names) == 1 and short not in found.commands and short not in reserved:
            found.short[short] = names[0]


def _add(found: CustomCommands, path: Path, name: str, source: Source, folder: str) -> None:
    """A workspace command whose name the user's own has goes under ``project:``. (The
    user's are all added first, so a name taken here is the user's or the workspace's.)"""
    taken = found.commands.get(name)
    if taken is not None and taken.source == "user":
        name = f"{PROJECT}:{name}"
        taken = found.commands.get(name)
    if taken is not None:
        found.problems.append(f"{path}: not used: /{name} is taken by {taken.path}; rename the file")
        return
    command = _read(path, name, source, found.problems)
    if command is not None:
        found.commands[name] = replace(command, folder=folder)


def _command_files(folder: Path, problems: list[str]) -> list[Path]:
    return markdown_files(folder, problems, cap=COMMANDS_CAP, noun="commands", nested=True)


def markdown_files(folder: Path, problems: list[str], *, cap: int, noun: str,
                   nested: bool = False) -> list[Path]:
    """A folder's ``.md`` files (``nested``: in its subfolders too), sorted, ``cap`` at most;
    what could not be listed or was left out goes to ``problems``."""
    try:
        found = folder.rglob("*.md") if nested else folder.glob("*.md")
        files = sorted(path for path in found if path.is_file())
    except OSError as exc:
        problems.append(f"{folder}: cannot be read ({exc.strerror or exc})")
        return []
    if len(files) > cap:
        problems.append(f"{folder}: only the first {cap} of {len(files)} {noun} are used")
    return files[:cap]


def read_prompt_file(path: Path, problems: list[str]) -> str | None:
    """A command's or an agent's Markdown file, ``FILE_CAP`` bytes at most; None, with the
    reason in ``problems``, when it cannot be used."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(FILE_CAP + 1)
    except OSError as exc:
        problems.append(f"{path}: cannot be read ({exc.strerror or exc})")
        return None
    if len(raw) > FILE_CAP:
        problems.append(f"{path}: larger than {FILE_CAP // 1000} KB, not used")
        return None
    text = raw.decode("utf-8", errors="replace").lstrip("\ufeff")
    return text


def _read(path: Path, name: str, source: Source, problems: list[str]) -> CustomCommand | None:
    text = read_prompt_file(path, problems)
    if text is None:
        return None
    front = _FrontMatter()
    names: tuple[str, ...] = ()
    match = FRONT_MATTER.match(text)
    if match:
        text = text[match.end():]
        try:
            data = yaml.safe_load(match.group(1))
            if isinstance(data, dict):
                # Text values only: YAML aliases can make a small list stand for one too
                # large to turn into text.
                front = _FrontMatter.model_validate(
                    {k: str(v) for k, v in data.items() if isinstance(v, str | int | float | bool)})
                names = argument_names(data.get("arguments"))
        except (yaml.YAMLError, ValidationError) as exc:
            problems.append(f"{path}: front matter is not valid YAML ({_first_line(str(exc))})")
    template = text.strip()
    if not template:
        problems.append(f"{path}: the prompt is empty")
        return None
    description = _first_line(front.description, 200) or _first_line(template)
    hint = _first_line(front.argument_hint)
    return CustomCommand(name, description, hint, template, path, source, names)


def _first_line(text: str, length: int = 80) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= length else line[: length - 1] + "…"
