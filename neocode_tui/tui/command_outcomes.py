"""What a core slash command returned, on screen: a notice, a diff to scroll, a question with
its preview, a list to pick from. The command decides what happens; this only shows and asks."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from textual.screen import Screen

from neocode_tui.agent.commands import Confirm, Outcome, PickSession, Report, ShowDiff, ShowJobs, respond
from neocode_tui.tui.conversation import ConversationView
from neocode_tui.tui.screens import DiffScreen, JobsScreen, RestoreScreen, RewindScreen, SessionPicker


class Host(Protocol):
    """The app, as far as presenting an outcome needs it."""

    @property
    def conversation(self) -> ConversationView: ...

    def prefill_input(self, text: str) -> None: ...

    def push_screen(self, screen: Screen[Any]) -> Any: ...

    async def push_screen_wait(self, screen: Screen[Any]) -> Any: ...

    def edit_file(self, path: Path) -> None: ...


async def present(host: Host, outcome: Outcome) -> None:
    """Show ``outcome``; a question or a list is asked, and what its answer gives shown in
    turn. Runs in a worker: the dialogs are waited for."""
    while True:
        if isinstance(outcome, Report):
            if outcome.text:
                host.conversation.add_notice(outcome.level, outcome.text)
            if outcome.prefill:
                host.prefill_input(outcome.prefill)
            if outcome.edit is not None:
                host.edit_file(outcome.edit)
            return
        if isinstance(outcome, ShowDiff):
            host.push_screen(DiffScreen(outcome.title, outcome.diff))
            return
        if isinstance(outcome, ShowJobs):
            host.push_screen(JobsScreen(outcome.jobs))
            return
        if isinstance(outcome, Confirm):
            choice = await host.push_screen_wait(RestoreScreen(outcome.preview, outcome.kind))
        elif isinstance(outcome, PickSession):
            choice = await host.push_screen_wait(SessionPicker(outcome.sessions))
        else:
            picked = await host.push_screen_wait(RewindScreen(outcome.points, outcome.git_status))
            choice = None if picked is None else str(picked)
        outcome = await respond(outcome, choice)

