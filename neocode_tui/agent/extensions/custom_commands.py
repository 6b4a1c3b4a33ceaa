"""Custom slash commands: a Markdown file is a prompt the user runs as ``/name``.

The format is Claude Code's, so a team's existing commands work unchanged: the file's body is
the prompt, ``$ARGUMENTS`` (and ``$1``, ``$2``…) take what follows the name, and optional YAML
front matter gives ``description`` and ``argument-hint``. A file in a subfolder is
``/folder:name``. They come from the user (``commands/`` in the config folder,
``~/.claude/commands/``) and from the workspace (``.neocode/commands/``, ``.claude/commands/``).

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
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

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
PLACEHOLDER = re.compile(r"\$(ARGUMENTS|[1-9][0-9]?)")
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

    @property
    def label(self) -> str:
        """The description with where the command came from: "Review a file (project)"."""
        return f"{self.description} ({self.source})"

    @property
    def takes_arguments(self) -> bool:
        return bool(self.argument_hint or PLACEHOLDER.search(self.template))

    def expand(self, arguments: str) -> str:
        """The prompt with its placeholders filled; arguments given to a prompt that has no
        placeholder are added at its end rather than silently lost."""
        arguments = arguments.strip()
        if not PLACEHOLDER.search(self.template):
            return f"{self.template}\n\nARGUMENTS: {arguments}" if arguments else self.template
        try:
            words = shlex.split(arguments)
        except ValueError:  # an unclosed quote: words as typed
            words = arguments.split()

        def fill(match: re.Match[str]) -> str:
            key = match.group(1)
            if key == "ARGUMENTS":
                return arguments
            number = int(key)
            return words[number - 1] if number <= len(words) else ""

        return PLACEHOLDER.sub(fill, self.template)


@dataclass
class CustomCommands:
    commands: dict[str, CustomCommand] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    """One line per file that could not be used, each naming the file."""

    def named(self, text: str) -> tuple[CustomCommand, str] | None:
        """The custom command ``text`` runs when it is ``/name args``, with the arguments."""
        stripped = text.strip()
        if not stripped.startswith("/"):
            return None
        name, _, arguments = stripped[1:].partition(" ")
        command = self.commands.get(name.lower())
        if command is None or "\n" in name:
            return None
        return command, arguments

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
    workspace: Path, reserved: Iterable[str] = (), home: Path | None = None
) -> CustomCommands:
    """Every usable command file; ``reserved`` are the built-in names none may take."""
    workspace = workspace.resolve()
    reserved = {name.lower() for name in reserved}
    found = CustomCommands()
    named: set[tuple[Source, str]] = set()
    """(owner, name as the file gives it): a later folder of the same owner does not count."""
    for folder, source in command_folders(workspace, home):
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
                _add(found, path, name, source)
    return found


def _add(found: CustomCommands, path: Path, name: str, source: Source) -> None:
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
        found.commands[name] = command


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
        except (yaml.YAMLError, ValidationError) as exc:
            problems.append(f"{path}: front matter is not valid YAML ({_first_line(str(exc))})")
    template = text.strip()
    if not template:
        problems.append(f"{path}: the prompt is empty")
        return None
    description = _first_line(front.description, 200) or _first_line(template)
    hint = _first_line(front.argument_hint)
    return CustomCommand(name, description, hint, template, path, source)


def _first_line(text: str, length: int = 80) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= length else line[: length - 1] + "…"
