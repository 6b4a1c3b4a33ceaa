"""Slash commands on screen: one table that the input's completion, ``/help`` and the command
palette (Ctrl+P) all read, so the three can never disagree. The built-in commands come
first (the core's table, which every front end shares, and the app's own few); the user's
custom commands (Markdown prompts) are added to it at run time."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Literal, NamedTuple, Protocol

from textual.command import DiscoveryHit, Hit, Hits, Provider

from neocode_tui.agent.commands import COMMANDS
from neocode_tui.terminal_text import visible


@dataclass(frozen=True)
class SlashCommand:
    name: str
    help: str
    argument: str = ""
    """The argument's placeholder in help ("NAME"); empty when the command takes none."""
    kind: Literal["app", "core", "prompt"] = "core"
    """Whose it is: the app's own (the screen), the core's table (every front end has it), or
    a custom command, whose line is sent as a prompt for the session to expand."""

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.argument}".rstrip()


APP_COMMANDS: dict[str, SlashCommand] = {
    command.name: command for command in (
        SlashCommand("help", "list the commands and keys", kind="app"),
        SlashCommand("theme", "switch the theme, remembered for next time", "NAME", kind="app"),
        SlashCommand("vim", "vi keys in the prompt on or off, remembered for next time", kind="app"),
        SlashCommand("copy", "copy the last answer (N: its N-th code block) to the clipboard", "[N]",
                     kind="app"),
        SlashCommand("quit", "leave NeoCode", kind="app"),
        SlashCommand("exit", "leave NeoCode (as /quit)", kind="app"),
    )
}
"""The commands about the screen itself; every other built-in one is the core's."""


def built_in_commands() -> tuple[SlashCommand, ...]:
    """The app's commands among the core's, as help lists them: help first, the theme
    beside the other settings, quit last."""
    listed = [APP_COMMANDS["help"]]
    for command in COMMANDS.values():
        listed.append(SlashCommand(command.name, command.help, command.argument))
        if command.name == "approval":
            listed.extend((APP_COMMANDS["theme"], APP_COMMANDS["vim"]))
    return (*listed, APP_COMMANDS["copy"], APP_COMMANDS["quit"], APP_COMMANDS["exit"])


class CommandTable:
    """The built-in commands, then the custom ones, which ``set_custom`` replaces."""

    def __init__(self, built_in: Iterable[SlashCommand] | None = None) -> None:
        self._built_in = tuple(built_in or built_in_commands())
        self._by_name = {command.name: command for command in self._built_in}

    @property
    def built_in_names(self) -> list[str]:
        return [command.name for command in self._built_in]

    def set_custom(self, commands: Iterable[SlashCommand]) -> None:
        """A custom command never replaces a built-in one."""
        self._by_name = {command.name: command for command in self._built_in}
        for command in commands:
            self._by_name.setdefault(command.name, command)

    def get(self, name: str) -> SlashCommand | None:
        return self._by_name.get(name)

    def __iter__(self) -> Iterator[SlashCommand]:
        return iter(self._by_name.values())


@dataclass(frozen=True)
class Completion:
    replacement: str
    """The whole input line once this completion is taken."""
    label: str
    help: str = ""


class CommandHost(Protocol):
    """What the palette needs of the app's slash commands (``SlashLine``)."""

    @property
    def table(self) -> CommandTable: ...

    def choices(self, name: str) -> list[str]: ...

    def run(self, line: str) -> None: ...

    def prefill(self, text: str) -> None: ...


def complete(text: str, table: CommandTable, choices: Callable[[str], list[str]]) -> list[Completion]:
    """Completions for a partly typed command line: names first, then the argument's choices."""
    if not text.startswith("/") or "\n" in text:
        return []
    typed, space, argument = text[1:].partition(" ")
    if not space:
        return [
            Completion(f"/{c.name} " if c.argument else f"/{c.name}", c.usage, c.help)
            for c in table
            if c.name.startswith(typed.lower())
        ]
    command = table.get(typed.lower())
    if command is None or not command.argument:
        return []
    return [
        Completion(f"/{command.name} {choice}", choice, command.help)
        for choice in choices(command.name)
        if choice.startswith(argument) and choice != argument
    ]


class _Entry(NamedTuple):
    line: str
    help: str
    callback: Callable[[], None]
    discoverable: bool


class SlashCommandsProvider(Provider):
    """The slash commands in Textual's command palette: one entry per command and choice."""

    def _entries(self) -> list[_Entry]:
        """Each command (a command with an argument puts its name in the input), then each
        known choice of an argument as a ready-to-run line."""
        host: CommandHost = self.app.slash  # type: ignore[attr-defined]
        entries: list[_Entry] = []
        for command in host.table:
            if not command.argument:
                run = partial(host.run, command.usage)
                entries.append(_Entry(command.usage, command.help, run, True))
                continue
            prefill = partial(host.prefill, f"/{command.name} ")
            entries.append(_Entry(command.usage, command.help, prefill, True))
            for choice in host.choices(command.name):
                line = f"/{command.name} {choice}"
                entries.append(_Entry(line, command.help, partial(host.run, line), False))
        return entries

    async def discover(self) -> Hits:
        for entry in self._entries():
            if entry.discoverable:
                yield DiscoveryHit(visible(entry.line), entry.callback, help=visible(entry.help))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for line, help, callback, _ in self._entries():
            shown = visible(line)  # a custom command's text comes from a file
            score = matcher.match(shown)
            if score > 0:
                yield Hit(score, matcher.highlight(shown), callback, help=visible(help))

