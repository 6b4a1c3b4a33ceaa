"""The slash commands as the app offers them: the one table that completion, ``/help`` and
the palette read (the core's built-in commands, the app's own few, the session's custom
ones), and running a line typed or picked. The core commands decide what happens; this
starts them the way the app runs work and shows what they answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from neocode_tui.agent.commands import COMMANDS, Outcome, parse_command, run_command
from neocode_tui.deferred import lazy
from neocode_tui.tui.commands import CommandTable, Completion, SlashCommand, complete

if TYPE_CHECKING:
    from textual.screen import Screen

    from neocode_tui.agent.session import AgentSession
    from neocode_tui.tui import command_outcomes
    from neocode_tui.tui.conversation import ConversationView
else:  # after the first frame, or on first use (neocode_tui/deferred.py)
    command_outcomes = lazy("neocode_tui.tui.command_outcomes")


class SlashHost(Protocol):
    """The app, as far as its slash commands need it."""

    @property
    def session(self) -> AgentSession: ...

    @property
    def conversation(self) -> ConversationView: ...

    @property
    def working(self) -> bool: ...

    def send(self, text: str) -> None:
        """A prompt for the session (a custom command's line, which it expands)."""

    def start_task(self, work: Awaitable[object]) -> None:
        """Work that Esc interrupts, as a run is (a command that talks to the model)."""

    def run_worker(self, work: Awaitable[Any], *, group: str) -> Any: ...

    def prefill_input(self, text: str) -> None: ...

    def push_screen(self, screen: Screen[Any]) -> Any: ...

    async def push_screen_wait(self, screen: Screen[Any]) -> Any: ...

    def edit_file(self, path: Path) -> None: ...

    def show_settings(self) -> None:
        """What a command may have changed: the model, the mode, a profile."""


AppCommand = Callable[[str], None]


class SlashLine:
    def __init__(self, host: SlashHost, app_commands: dict[str, AppCommand],
                 app_choices: dict[str, Callable[[], list[str]]]) -> None:
        """``app_commands``: the app's own commands by name (help, theme, quit), each given
        its argument; ``app_choices``: what their arguments may be."""
        self._host = host
        self._app_commands = app_commands
        self._app_choices = app_choices
        self._table = CommandTable()

    @property
    def built_in_names(self) -> list[str]:
        return self._table.built_in_names

    @property
    def table(self) -> CommandTable:
        """The built-in commands and the session's custom ones (so the session comes first)."""
        _ = self._host.session  # made on first use, with its custom commands
        return self._table

    def show_custom(self, session: AgentSession) -> None:
        """The session's custom commands and MCP prompts join completion, /help and the
        palette."""
        self._table.set_custom(
            SlashCommand(
                command.name, command.label,
                (command.argument_hint or "ARGUMENTS") if command.takes_arguments else "",
                kind="prompt",
            )
            for command in session.prompt_commands()
        )

    def complete(self, text: str) -> list[Completion]:
        if not text.startswith("/"):
            return []  # no command: nothing that needs the session (typed as it starts)
        if text == "/":  # a command file added since shows up
            session = self._host.session
            session.reload_commands()
            self.show_custom(session)
        return complete(text, self.table, self.choices)

    def choices(self, name: str) -> list[str]:
        if name in self._app_choices:
            return self._app_choices[name]()
        command = COMMANDS.get(name)
        return command.choices(self._host.session) if command is not None else []

    def prefill(self, text: str) -> None:
        self._host.prefill_input(text)

    def run(self, line: str) -> None:
        parsed = parse_command(line)
        assert parsed is not None
        name, argument = parsed
        host, command = self._host, self.table.get(name)
        if command is None:
            host.conversation.add_notice("warning", f"unknown command /{name}: /help lists them")
        elif command.kind == "prompt":
            host.send(line)  # the session sends the command's prompt
        elif command.kind == "app":
            self._app_commands[name](argument)
        elif COMMANDS[name].idle and host.working:
            stop = host.conversation.keys.press("interrupt", "interrupts it")
            host.conversation.add_notice("warning", f"/{name} waits for the current answer"
                                         + (f" ({stop})" if stop else ""))
        elif COMMANDS[name].talks(argument):
            host.start_task(self.present(run_command(host.session, name, argument)))
        else:
            host.run_worker(self.present(run_command(host.session, name, argument)), group="command")

    async def present(self, outcome: Awaitable[Outcome], then: Callable[[], None] = lambda: None) -> None:
        """Show what a core command returned, asking what it asks on the way, then the
        settings it may have changed."""
        await command_outcomes.present(self._host, await outcome)
        self._host.show_settings()
        then()
