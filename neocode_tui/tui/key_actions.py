"""What the app's keys do (``tui/keymap`` says which key does which): interrupt, clear or
quit, modes, folds, the key overlay, paging, the background commands, the transcript search.
A mixin of ``NeoCodeApp``, which owns the widgets and the session."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual.app import App

from neocode_tui.deferred import lazy
from neocode_tui.tui.keys import next_mode
from neocode_tui.vocabulary import ApprovalMode, mode_notice

if TYPE_CHECKING:
    from neocode_tui.agent.session import AgentSession
    from neocode_tui.tui import screens
    from neocode_tui.tui.app_keys import AppKeys
    from neocode_tui.tui.conversation import ConversationView
    from neocode_tui.tui.screens import key_help
    from neocode_tui.tui.slash import SlashLine
    from neocode_tui.tui.widgets import PromptInput, StatusBar, TranscriptSearchBar
else:
    key_help = lazy("neocode_tui.tui.screens.key_help")
    screens = lazy("neocode_tui.tui.screens")

QUIT_WINDOW = 2.0
"""Seconds within which a second Ctrl+C quits."""


class KeyActions(App[None]):
    prompt: PromptInput
    conversation: ConversationView
    status: StatusBar
    slash: SlashLine
    keys: AppKeys
    transcript_search: TranscriptSearchBar
    _last_ctrl_c = -QUIT_WINDOW

    if TYPE_CHECKING:  # the app's
        @property
        def session(self) -> AgentSession: ...

        @property
        def made_session(self) -> AgentSession | None: ...

        @property
        def working(self) -> bool: ...

    @property
    def on_main_screen(self) -> bool:
        return self.screen is self.screen_stack[0]

    def action_interrupt(self) -> None:
        """Esc: stop the running turn; what was shown stays, marked by the view."""
        if self.working:
            self.session.cancel()
        elif not self.conversation.anchored:
            self.conversation.scroll_to_latest()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Paging and End belong to the conversation only on the main screen, and End only
        while the input is empty (otherwise it moves the cursor to the end of the line)."""
        if action in ("page", "latest") and not self.on_main_screen:
            return False
        if action == "latest":
            return not self.prompt.text
        return True

    def action_page(self, direction: int) -> None:
        view = self.conversation
        view.scroll_relative(y=direction * max(view.scrollable_content_region.height - 2, 1), animate=False)

    def action_latest(self) -> None:
        self.conversation.scroll_to_latest()

    def action_interrupt_clear_or_quit(self) -> None:
        """Ctrl+C, the way terminal agents answer it: clear what is being typed, else stop
        the turn if one runs, else (twice within a moment) quit. A queued message taken back
        with Up is dropped this way."""
        prompt = self.prompt
        if prompt.text:
            prompt.clear()
            return
        if self.working and self.on_main_screen:
            self.session.cancel()
            self._last_ctrl_c = -QUIT_WINDOW
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_WINDOW:
            self.exit()
            return
        self._last_ctrl_c = now
        running = self.made_session.jobs.running if self.made_session else []
        stopping = f" {screens.stopping_words(running)}." if running else ""
        self.status.say(f"Press Ctrl+C again to quit.{stopping}", QUIT_WINDOW)

    def action_cycle_mode(self) -> None:
        if self.on_main_screen:
            self._set_mode(next_mode(self.session.approval))

    def _set_mode(self, mode: ApprovalMode) -> None:
        self.session.approval = mode
        self.status.approval = mode
        self.conversation.add_notice("info", mode_notice(mode))

    def action_key_help(self) -> None:
        """Opens the key overlay, or closes it (its key pressed again)."""
        if isinstance(self.screen, key_help.KeyHelpScreen):
            self.screen.dismiss()
        else:
            self.push_screen(key_help.KeyHelpScreen(self.slash.table, self.keys.keymap, type_into=self.prompt.insert))

    def on_prompt_input_help_requested(self, _: PromptInput.HelpRequested) -> None:
        self.action_key_help()

    def action_toggle_latest_fold(self) -> None:
        self.conversation.toggle_latest()

    def action_transcript(self) -> None:
        expanded = self.conversation.toggle_transcript()
        self.notify("Transcript: everything unfolded" if expanded else "Folded back", timeout=2)

    def action_background(self) -> None:
        """Ctrl+B: the command running in the foreground goes on in the background (its
        call returns with its id); /ps lists it."""
        problem = self.session.jobs.send_to_background()
        if problem is not None:
            self.conversation.add_notice("info", f"{self.keys.keymap.first_label('background')}: {problem}")

    def action_jobs(self) -> None:
        """F2: the background commands, live, as /ps shows them."""
        self.slash.run("/ps")

    def action_copy_answer(self) -> None:
        self.slash.run("/copy")

    def action_search_transcript(self) -> None:
        """Opens the search over the whole conversation (again: back to its query)."""
        if self.on_main_screen:
            self.transcript_search.open()
