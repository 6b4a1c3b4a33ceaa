"""Slash commands: one table that the input's completion, ``/help`` and the command palette
(Ctrl+P) all read, so the three can never disagree. The built-in commands come first; the
user's custom commands (Markdown prompts) are added to it at run time."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple, Protocol

from textual.command import DiscoveryHit, Hit, Hits, Provider

from neocode_tui.terminal_text import visible


@dataclass(frozen=True)
class SlashCommand:
    name: str
    help: str
    argument: str = ""
    """The argument's placeholder in help ("NAME"); empty when the command takes none."""
    prompt: bool = False
    """A custom command: its line is sent as a prompt, which the session expands."""

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.argument}".rstrip()


SLASH_COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("help", "list the commands and keys"),
    SlashCommand("clear", "start a fresh conversation"),
    SlashCommand("model", "switch the model (no name: show the current one)", "NAME"),
    SlashCommand("approval", "what needs your yes: ask, auto-edit, full-auto, plan", "MODE"),
    SlashCommand("theme", "switch the theme, remembered for next time", "NAME"),
    SlashCommand("sessions", "list the saved sessions of this folder"),
    SlashCommand("resume", "load a saved session (no ID: pick one from a list)", "ID"),
    SlashCommand(
        "compact", "summarise the older history to free the context (FOCUS: what to keep)", "[FOCUS]"
    ),
    SlashCommand("context", "what fills the model's context window"),
    SlashCommand("cost", "the session's tokens and cost per model"),
    SlashCommand("undo", "put back the files the last prompt changed (shows the diff first)"),
    SlashCommand("rewind", "go back to an earlier prompt, with or without its file changes"),
    SlashCommand("diff", "what changed in the workspace this session (git diff in a repository)"),
    SlashCommand("mcp", "the MCP servers, their state and tools; restart NAME reconnects one",
                 "[restart NAME]"),
    SlashCommand("quit", "leave NeoCode"),
)


class CommandTable:
    """The built-in commands, then the custom ones, which ``set_custom`` replaces."""

    def __init__(self, built_in: Iterable[SlashCommand] = SLASH_COMMANDS) -> None:
        self._built_in = tuple(built_in)
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
    """What completion and the palette need from the app."""

    @property
    def slash_commands(self) -> CommandTable: ...

    def slash_choices(self, name: str) -> list[str]: ...

    def run_slash(self, line: str) -> None: ...

    def prefill_input(self, text: str) -> None: ...


def parse_slash(text: str) -> tuple[str, str] | None:
    """``"/model gpt-4o"`` -> ``("model", "gpt-4o")``; None when the text is not a command line."""
    stripped = text.strip()
    if not stripped.startswith("/") or "\n" in stripped:
        return None
    name, _, argument = stripped[1:].partition(" ")
    return name.lower(), argument.strip()


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
        host: CommandHost = self.app  # type: ignore[assignment]
        entries: list[_Entry] = []
        for command in host.slash_commands:
            if not command.argument:
                run = partial(host.run_slash, command.usage)
                entries.append(_Entry(command.usage, command.help, run, True))
                continue
            prefill = partial(host.prefill_input, f"/{command.name} ")
            entries.append(_Entry(command.usage, command.help, prefill, True))
            for choice in host.slash_choices(command.name):
                line = f"/{command.name} {choice}"
                entries.append(_Entry(line, command.help, partial(host.run_slash, line), False))
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

