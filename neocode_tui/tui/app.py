"""The NeoCode app: a conversation, an input box and a status bar around one agent session.

The app owns no agent logic. It hands prompts and commands to its ``AgentSession``, draws
the session's events (the conversation view buffers them per frame, the status bar counts),
answers approval requests with a modal, and asks the session to cancel on Esc. A new prompt
starts only once the previous one is done, so a cancelled run's events cannot land in the
next one.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen

from neocode_tui import __version__
from neocode_tui.agent import git_state
from neocode_tui.agent.sandbox import choose_sandbox
from neocode_tui.errors import NeoCodeError
from neocode_tui.trust import trust
from neocode_tui.tui.attention import notification
from neocode_tui.tui.commands import (
    CommandTable,
    Completion,
    SlashCommand,
    SlashCommandsProvider,
    complete,
    parse_slash,
)
from neocode_tui.tui.conversation import ConversationView
from neocode_tui.tui.keys import next_mode
from neocode_tui.tui.themes import DEFAULT_THEME, discover_themes
from neocode_tui.tui.user_config import load_user_config, save_user_config
from neocode_tui.tui.widgets.completion import SlashCompletion
from neocode_tui.tui.widgets.mention_picker import MentionPicker
from neocode_tui.tui.widgets.prompt import PromptInput
from neocode_tui.tui.widgets.queue import QueuedPrompts
from neocode_tui.tui.widgets.status import StatusBar
from neocode_tui.vocabulary import APPROVAL_MODES, MODE_DESCRIPTIONS, ApprovalMode

if TYPE_CHECKING:
    from neocode_tui.agent.loop_events import ApprovalDecision, ApprovalRequested, LoopEvent
    from neocode_tui.agent.session import AgentSession
    from neocode_tui.chat import Message
    from neocode_tui.config import Settings
    from neocode_tui.providers import Provider
    from neocode_tui.settings import Profiles, TrustRequest
    from neocode_tui.tui.starting import Starting

RUN_ENDED = {
    "done": "done: your turn",
    "cancelled": "interrupted",
    "error": "stopped on an error",
    "turn_limit": "stopped at the turn limit",
}
"""What the notification says when a run ends, by its reason."""
QUIT_WINDOW = 2.0
"""Seconds within which a second Ctrl+C quits."""



class _MainScreen(Screen[None]):
    AUTO_FOCUS = "#prompt"
    """Focused as the screen is mounted, so keys typed while the app starts go into the
    input (the dialogs keep Textual's default: their first focusable widget)."""


class NeoCodeApp(App[None]):
    """Run with ``NeoCodeApp(settings, provider).run()``; everything else is optional.

    ``clock``, ``version`` and ``blink`` (the cursor's; off also turns animations off) exist
    so snapshots and demo recordings are the same on every run.
    """

    CSS_PATH = "app.tcss"
    TITLE = "NeoCode"
    COMMANDS = App.COMMANDS | {SlashCommandsProvider}
    BINDINGS = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "interrupt_clear_or_quit", "Interrupt / clear / quit", show=False, priority=True),
        Binding("shift+tab", "cycle_mode", "Cycle mode", show=False, priority=True),
        Binding("f1", "key_help", "Keys", show=False, priority=True),
        Binding("ctrl+t", "toggle_latest_fold", "Fold", show=False, priority=True),
        Binding("ctrl+o", "transcript", "Transcript", show=False, priority=True),
        # The keyboard stays in the input; these reach the conversation from there.
        Binding("pageup", "page(-1)", "Scroll up", show=False, priority=True),
        Binding("pagedown", "page(1)", "Scroll down", show=False, priority=True),
        Binding("end", "latest", "Latest", show=False, priority=True),
    ]

    def __init__(
        self,
        settings: Settings | None = None,
        provider: Provider | None = None,
        workspace: Path | None = None,
        initial_prompt: str | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        version: str = __version__,
        remember_theme: bool = True,
        resume: str | None = None,
        blink: bool = True,
        notices: list[str] | None = None,
        untrusted: TrustRequest | None = None,
        pick_session: bool = False,
        profiles: Profiles | None = None,
        starting: Starting | None = None,
    ) -> None:
        """``resume``: a session id (or id prefix) to continue, "" for this folder's latest.
        ``pick_session``: open with the session picker (``neocode --resume`` with no ID).

        Raises ``SessionNotFound`` before anything is drawn when there is no such session.
        ``notices``: warnings from start-up to show. ``untrusted``: the workspace wants to
        set what only a trusted folder may; the app asks once and, on yes, starts over on
        the settings it then allows. ``profiles``: the user's, for ``/model NAME``.
        ``starting``: instead of ``settings`` (and ``provider``, ``untrusted``, ``profiles``),
        what loads them once the first frame is drawn.
        """
        super().__init__()
        if settings is not None:
            self.settings = settings
        self._starting = None if settings is not None else starting
        assert settings is not None or starting is not None, "settings, or what loads them"
        self.start_error: NeoCodeError | None = None
        """Why the settings ``starting`` loaded are not usable: the app has ended on it."""
        self.workspace = (workspace or Path.cwd()).resolve()
        self._slash_commands = CommandTable()
        self._provider = provider
        self._session: AgentSession | None = None
        self._started_session = False
        self.started_up = asyncio.Event()
        """Set once start-up has said what it had to say (after any start-up question): what
        whoever drives the app (a test, a recording) waits on before reading it, not the clock."""
        self.initial_prompt = initial_prompt
        self.start_notices = list(notices or ())
        self.untrusted = untrusted
        self.profiles = profiles
        self.clock = clock
        self.version = version
        self.remember_theme = remember_theme
        self.blink = blink
        if not blink:
            self.animation_level = "none"
        themes, self._theme_problems = discover_themes()
        for theme in themes:
            self.register_theme(theme)
        # Set before anything is styled: set once mounted, it would style the screen twice.
        self.theme = self._starting_theme()
        if resume is not None:
            self.session.resume(resume or None)  # before the screen exists: no event drawn
        self._work: asyncio.Task[None] | None = None
        """The one piece of work in progress (a run or a compaction): Esc cancels it."""
        self._last_ctrl_c = -QUIT_WINDOW
        self.quit_while_working = False
        """Set on the way out: a turn was still running and was interrupted."""
        self._rewinding = False
        """A rewind replaces the transcript: it says so itself, not as a resume."""
        self.pick_session = pick_session

    @property
    def session(self) -> AgentSession:
        """Made when first wanted: once the first frame is drawn, or before it to resume."""
        return self._make_session() if self._session is None else self._session

    @session.setter
    def session(self, session: AgentSession) -> None:
        self._session = session

    def get_default_screen(self) -> Screen[None]:
        return _MainScreen(id="_default")

    @property
    def made_session(self) -> AgentSession | None:
        """The session if it was made (the app may end before: a signal, bad settings)."""
        return self._session

    @property
    def provider(self) -> Provider:
        return self.session.provider

    def _make_session(self) -> AgentSession:
        if not self._settings_ready():
            assert self.start_error is not None
            raise self.start_error  # the app is ending on it
        self._session = self._new_session(self.settings, self._provider)
        return self._session

    @property
    def slash_commands(self) -> CommandTable:
        """The built-in commands and the session's custom ones (so the session comes first)."""
        if self._session is None:
            self._make_session()
        return self._slash_commands

    def _new_session(self, settings: Settings, provider: Provider | None) -> AgentSession:
        from neocode_tui.agent.session import AgentSession  # after the first frame (start-up)

        session = AgentSession(
            settings, self.workspace, provider=provider, listener=self._on_loop_event,
            approver=self._approve, built_in_commands=self._slash_commands.built_in_names,
        )
        self._show_custom_commands(session)
        return session

    def _show_custom_commands(self, session: AgentSession) -> None:
        """The session's custom commands join completion, /help and the palette."""
        self._slash_commands.set_custom(
            SlashCommand(
                command.name, command.description,
                (command.argument_hint or "ARGUMENTS") if command.takes_arguments else "",
                prompt=True,
            )
            for command in session.commands.commands.values()
        )

    def compose(self) -> ComposeResult:
        # Held, not queried: the loop keeps reporting while a modal is up or the app closes.
        completion = SlashCompletion(id="completion")
        self.mention_picker = MentionPicker(lambda: self.session.files, id="mentions")
        self.conversation = ConversationView(id="conversation")
        self.queued = QueuedPrompts(id="queued")
        self.prompt = PromptInput(
            completion, self._complete, unqueue=self.queued.take_last,
            mentions=self.mention_picker, id="prompt",
        )
        self.prompt.cursor_blink = self.blink
        self.status = StatusBar(self.clock, id="status")
        yield self.conversation
        yield completion
        yield self.mention_picker
        yield self.queued
        yield self.prompt
        yield self.status

    @property
    def _on_screen(self) -> bool:
        """False before the screen is built and once the app is closing: a run cancelled
        on exit reports to no one."""
        view = getattr(self, "conversation", None)
        return view is not None and view.is_attached

    def on_mount(self) -> None:
        """The first frame. Without the settings yet (``starting``) it shows what is known
        without them: the version line, the input, the status bar with the flag's approval
        (else "ask"); the rest follows them, right after the frame."""
        self.conversation.add_notice(
            "info",
            f"NeoCode {self.version} in {self.workspace.name or self.workspace} · "
            "type a task and press Enter · F1 keys · / commands · Esc interrupts",
        )
        if self._starting is None:
            self._show_starting_settings()
        else:
            self.status.approval = self._starting.approval or "ask"
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        self.prompt.focus()
        # A resumed conversation and what opens over the screen at start (the session
        # picker, the trust question) come with the first frame; otherwise the session follows it.
        untrusted_names = self.untrusted is not None and self.untrusted.names
        if self._session is not None or self.pick_session or untrusted_names:
            self._start_session()

    def on_ready(self) -> None:
        """The first frame is on screen: the settings and the session now, unless they
        came with the frame."""
        if self._settings_ready() and not self._started_session:
            self._start_session()

    async def on_event(self, event: events.Event) -> None:
        # A key typed ahead may come before the first frame's Ready, and what it does (F1,
        # /, Enter, the palette) may need the session: the settings load first.
        if isinstance(event, events.Key) and not self._settings_ready():
            return
        await super().on_event(event)

    def _settings_ready(self) -> bool:
        """Loads the settings ``starting`` gives, once. False when they are not usable: the
        app then ends at once with their error, which ``neocode`` prints."""
        starting = self._starting
        if starting is None:
            return self.start_error is None
        self._starting = None
        try:
            loaded = starting.load()
        except NeoCodeError as exc:
            self.start_error = exc
            self.exit(return_code=exc.exit_code)
            return False
        self.settings, self._provider = loaded.settings, loaded.provider
        self.untrusted, self.profiles = loaded.untrusted, loaded.profiles
        if starting.theme is None and self.settings.theme:  # the flag's came first already
            self.theme = self._known_theme(self.settings.theme, self.theme)
        self._show_starting_settings()
        return True

    def _start_session(self) -> None:
        """Start-up's work with the session (importing and setting up the agent takes about
        0.1 s): make it, then show what it and the folder have to say. Runs once the first
        frame is drawn, or before it to resume, pick a session or ask about trust."""
        self._started_session = True
        self._show_settings(context=False)
        self.run_worker(self._show_context_soon(), group="context")
        if self.session.messages:
            self._show_transcript("resumed", self.session.messages)
        self.session.files.refresh()  # in the background: @ has the files when it is typed
        self._remember_theme(self.current_theme)  # the theme it started with, as when it changes
        # Everything imported and built so far lives as long as the app: moved out of the
        # collector's sight, it no longer makes full collections (50-100 ms pauses measured
        # by bench/bench_screen.py) stall frames while a long answer streams. ``neocode``
        # starts with collections off (cli/app.py): from here on they run.
        gc.freeze()
        gc.enable()
        wanted = self.untrusted.wanted() if self.untrusted is not None else []
        if wanted:
            from neocode_tui.tui.trust import TrustScreen  # after the first frame (start-up)

            self.push_screen(TrustScreen(self.workspace, wanted), self._trust_answered)
        else:
            self._started()

    def _show_starting_settings(self) -> None:
        """The status bar and notices from what the session will be made with, before it is."""
        status = self.status
        provider = self._provider
        status.provider = provider.name if provider else self.settings.resolved_provider
        status.model = provider.model if provider else self.settings.resolved_model
        status.approval = self.settings.approval or "ask"
        status.warn_at = max(self.settings.compact_threshold - 0.1, 0.05)
        status.sandbox = choose_sandbox(self.settings.sandbox, self.settings.sandbox_network).label
        if status.provider == "scripted":
            self.conversation.add_notice(
                "warning",
                "No API key: this is the offline scripted model, a guided tour of what the app "
                "does. Set OPENAI_API_KEY or ANTHROPIC_API_KEY (or a .env file) for a real one.",
            )
        for problem in self._theme_problems:
            self.conversation.add_notice("warning", problem)
        self._theme_problems.clear()

    def _show_settings(self, *, context: bool = True) -> None:
        status = self.status
        status.provider = self.provider.name
        status.model = self.session.model
        status.approval = self.session.approval
        status.warn_at = max(self.settings.compact_threshold - 0.1, 0.05)
        if context:
            self._show_context()
        status.sandbox = self.session.sandbox.label

    async def _show_context_soon(self) -> None:
        """The meter, once the model's window is known: it comes from the price list, which
        takes about 0.1 s to load the first time, so that happens in a thread."""
        session = self.session
        await asyncio.to_thread(lambda: session.context_window)
        self._show_context()

    def _trust_answered(self, trusted: bool | None) -> None:
        request = self.untrusted
        assert request is not None
        if trusted:
            trust(self.workspace)
            try:
                settings = request.settings_when_trusted()
            except NeoCodeError as exc:
                self.conversation.add_notice("error", f"the folder's settings are not usable: {exc}")
                self._started()
                return
            old, self.settings = self.session, settings
            self.session = self._new_session(settings, None)
            self.run_worker(old.aclose())
            self.session.files.refresh()
            self._show_settings()
            self.conversation.add_notice("info", f"trusted {self.workspace}: its .env applies")
        else:
            self.start_notices.extend(request.ignored)
        self._started()

    def _started(self) -> None:
        """After any start-up question: what start-up had to say, then the first prompt."""
        self.session.mcp.start()  # in the background: nothing here waits for a server
        for notice in [*self.start_notices, *self.session.mcp.notices()]:
            self.conversation.add_notice("warning", notice)
        self.started_up.set()
        if self.pick_session:
            self._open_session_picker(then=self._start_initial_prompt)
        else:
            self._start_initial_prompt()

    def _start_initial_prompt(self) -> None:
        if self.initial_prompt:
            self._start_run(self.initial_prompt)

    def _starting_theme(self) -> str:
        """The theme named by the settings (by the flag, before they are loaded), else the
        remembered one."""
        named = self._starting.theme if self._starting is not None else self.settings.theme
        return self._known_theme(named, load_user_config().theme)

    def _known_theme(self, *names: str | None) -> str:
        """The first of ``names`` that is a theme; an unknown name joins the problems shown
        with the settings."""
        for name in names:
            if name and name in self.available_themes:
                return name
            if name:
                self._theme_problems.append(f"unknown theme {name!r}: using the default")
        # Ours lives in themes/ beside the package; an install without it still starts.
        return DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"

    def _remember_theme(self, theme: object) -> None:
        if self.remember_theme:
            config = load_user_config()
            config.theme = self.theme
            save_user_config(config)

    # -- running the agent ----------------------------------------------------------------

    @property
    def working(self) -> bool:
        return self._work is not None and not self._work.done()

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        text = event.text.strip()
        if not text:
            return
        if parse_slash(text) is not None:
            self.prompt.remember(text)
            self.prompt.clear()
            self.run_slash(text)
            return
        self.prompt.remember(text)
        self.prompt.clear()
        self._send(text)

    def _send(self, text: str) -> None:
        if self.working:
            self.queued.add(text)  # sent when the agent is done
            return
        self._start_run(text)

    def _start_run(self, prompt: str) -> None:
        self.conversation.add_user_message(prompt)
        self.conversation.scroll_to_latest()
        self._start_task(self.session.prompt(prompt))

    def _start_task(self, work: Awaitable[object]) -> None:
        from neocode_tui.events import Usage  # after the first frame (start-up)

        status = self.status
        status.working = True
        status.started_at = self.clock()
        status.finished_at = None
        status.turn_usage = Usage()
        self.prompt.add_class("-busy")
        self._work = asyncio.create_task(self._guarded(work))

    async def _guarded(self, work: Awaitable[object]) -> None:
        finished: object = None
        try:
            finished = await work
        except NeoCodeError as exc:
            if self._on_screen:
                self.conversation.add_notice("warning", str(exc))
        except Exception as exc:  # a bug below must never take the screen down with it
            if self._on_screen:
                self.conversation.add_notice("error", f"internal error: {type(exc).__name__}: {exc}")
        finally:
            status = self.status
            status.working = False
            status.finished_at = self.clock()
            self.prompt.remove_class("-busy")
        if self._on_screen:
            self._after_work(finished)

    def _after_work(self, finished: object) -> None:
        """The next queued message goes once a turn ends well; after an interrupt or an
        error they all come back into the input, for the user to decide."""
        from neocode_tui.agent.loop_events import RunFinished  # after the first frame (start-up)

        ended_well = isinstance(finished, RunFinished) and finished.reason in ("done", "turn_limit")
        if not self.queued.prompts:
            return
        if ended_well:
            next_prompt = self.queued.take_first()
            assert next_prompt is not None
            self.call_later(self._start_run, next_prompt)
            return
        waiting = "\n\n".join(self.queued.take_all())
        typed = self.prompt.text.strip()
        self.prompt.load_text(f"{waiting}\n\n{typed}" if typed else waiting)
        self.prompt.move_cursor(self.prompt.document.end)

    def _on_loop_event(self, event: LoopEvent) -> None:
        from neocode_tui.agent.loop_events import (  # after the first frame (start-up)
            Notice,
            RunFinished,
            TranscriptReplaced,
            TurnFinished,
        )

        if not self._on_screen:
            return
        if isinstance(event, TranscriptReplaced):
            self._show_transcript(event.reason, event.messages)
            return
        if isinstance(event, Notice) and not self.session.loop.running:
            # The session's own word (a compaction, a resume): no run's turn to belong to.
            self.conversation.add_notice(event.level, event.message)
            return
        self.conversation.post(event)
        self._track_usage(event)
        self._call_back(event)
        if isinstance(event, (TurnFinished, RunFinished)):
            self._show_context()

    # -- calling the user back --------------------------------------------------------------

    def _call_back(self, event: LoopEvent) -> None:
        """A bell or a desktop notification when the agent waits for the user, only while
        the terminal window has no focus (``settings.notify``)."""
        from neocode_tui.agent.loop_events import ApprovalRequested, RunFinished  # (start-up)

        if isinstance(event, RunFinished):
            self.call_attention(RUN_ENDED[event.reason])
        elif isinstance(event, ApprovalRequested):
            self.call_attention(f"approval needed: {event.summary}")

    def call_attention(self, message: str) -> None:
        if self.app_focus or self._driver is None:
            return
        sequence = notification(self.settings.notify, message)
        if sequence:
            self._driver.write(sequence)

    def _show_transcript(self, reason: str, messages: list[Message]) -> None:
        from neocode_tui.events import Usage  # after the first frame (start-up)

        view = self.conversation
        status = self.status
        status.turn_usage = Usage()
        status.session_usage = self.session.usage
        self.run_worker(self._show_context_soon(), group="context")  # not before a resume's first frame
        if reason == "compacted":
            return  # the history stays above; the session's marker notice follows
        view.clear()
        if reason == "cleared":
            status.started_at = None
            return
        from neocode_tui.agent.mentions import typed_part  # after the first frame (start-up)

        view.load_transcript([
            message.model_copy(update={"content": typed_part(message.content)})
            if message.role == "user" else message
            for message in messages
        ])
        if reason == "resumed" and not self._rewinding:
            view.add_notice("info", f"resumed session {self.session.id}: {self.session.title}")

    def _show_context(self) -> None:
        self.status.context = self.session.context
        self.status.cost = self.session.cost

    def _track_usage(self, event: LoopEvent) -> None:
        from neocode_tui.agent.loop_events import Streamed, TurnFinished, TurnStarted  # (start-up)
        from neocode_tui.events import MessageDone, StreamRetry, Usage, UsageEvent  # (start-up)

        status = self.status
        if isinstance(event, Streamed) and isinstance(event.event, StreamRetry):
            retry = event.event
            status.retrying = retry.status_line()
            return
        if status.retrying and isinstance(event, (Streamed, TurnFinished)):
            status.retrying = ""  # the new attempt answers
        if isinstance(event, TurnStarted):
            status.turn_usage = Usage()
        elif isinstance(event, Streamed) and isinstance(event.event, (UsageEvent, MessageDone)):
            usage = event.event.usage
            if usage is not None:
                status.turn_usage = (status.turn_usage or Usage()).merged(usage)
        elif isinstance(event, TurnFinished) and event.usage is not None:
            status.turn_usage = event.usage
            status.session_usage = self.session.usage

    async def _approve(self, request: ApprovalRequested) -> ApprovalDecision:
        """Show the modal and wait for its answer; the app keeps drawing meanwhile."""
        from neocode_tui.agent.loop_events import ApprovalDecision  # after the first frame (start-up)

        answer: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()

        def deliver(decision: ApprovalDecision | None) -> None:
            if not answer.done():
                answer.set_result(decision or ApprovalDecision(verdict="no"))

        await self._conversation_laid_out()
        from neocode_tui.tui.approval import ApprovalScreen  # after the first frame (start-up)

        screen = ApprovalScreen(request)
        self.push_screen(screen, deliver)
        try:
            decision = await answer
            if decision.verdict == "session":
                self.status.allowed = (*self.status.allowed, request.session_scope)
            return decision
        finally:
            # Interrupted while the question was open; once the app is closing its screens
            # go with it.
            if self.is_running and self.screen is screen:
                self.pop_screen()

    async def _conversation_laid_out(self) -> None:
        """Wait until the conversation's latest state is on screen, scrollbar included.

        A screen under a modal is not drawn again until the modal closes, so what it shows
        when the modal opens stays. A scrollbar that appeared after the last scroll still
        shows offset 0 (Textual syncs its thumb only when the offset changes): sync it.
        """
        view = self.conversation
        await view.settled()
        view.vertical_scrollbar.position = round(view.scroll_y)
        drawn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.call_after_refresh(lambda: None if drawn.done() else drawn.set_result(None))
        await drawn

    def action_interrupt(self) -> None:
        """Esc: stop the running turn; what was shown stays, marked by the view."""
        if self.working:
            self.session.cancel()
        elif not self.conversation.anchored:
            self.conversation.scroll_to_latest()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Paging and End belong to the conversation only on the main screen, and End only
        while the input is empty (otherwise it moves the cursor to the end of the line)."""
        if action in ("page", "latest") and self.screen is not self.screen_stack[0]:
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
        if self.working and self.screen is self.screen_stack[0]:
            self.session.cancel()
            self._last_ctrl_c = -QUIT_WINDOW
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_WINDOW:
            self.exit()
            return
        self._last_ctrl_c = now
        self.notify("Press Ctrl+C again to quit.", timeout=QUIT_WINDOW)

    def action_cycle_mode(self) -> None:
        if self.screen is not self.screen_stack[0]:
            return
        self._set_mode(next_mode(self.session.approval))

    def _set_mode(self, mode: ApprovalMode) -> None:
        self.session.approval = mode
        self.status.approval = mode
        self.conversation.add_notice("info", f"mode: {mode} ({MODE_DESCRIPTIONS[mode]})")

    def action_key_help(self) -> None:
        from neocode_tui.tui.key_help import KeyHelpScreen  # after the first frame (start-up)

        if not isinstance(self.screen, KeyHelpScreen):
            self.push_screen(KeyHelpScreen(self.slash_commands))

    def on_prompt_input_help_requested(self, _: PromptInput.HelpRequested) -> None:
        self.action_key_help()

    def action_toggle_latest_fold(self) -> None:
        self.conversation.toggle_latest()

    def action_transcript(self) -> None:
        expanded = self.conversation.toggle_transcript()
        self.notify("Transcript: everything unfolded" if expanded else "Folded back", timeout=2)

    async def on_unmount(self) -> None:
        # The session records what was running as interrupted and sends nothing more.
        self.quit_while_working = self.working
        if self._session is not None:
            await self._session.aclose()
        if self._work is not None:
            await asyncio.wait([self._work])

    # -- slash commands -------------------------------------------------------------------

    def _complete(self, text: str) -> list[Completion]:
        if text == "/":  # a command file added since shows up
            self.session.reload_commands()
            self._show_custom_commands(self.session)
        return complete(text, self.slash_commands, self.slash_choices)

    def slash_choices(self, name: str) -> list[str]:
        if name == "theme":
            return sorted(self.available_themes)
        if name == "approval":
            return list(APPROVAL_MODES)
        if name == "resume":
            return [info.id for info in self.session.saved_sessions()]
        if name == "mcp":
            return [f"restart {server}" for server in self.session.mcp.names]
        if name == "model" and self.profiles is not None:
            return list(self.profiles.names)
        return []

    def prefill_input(self, text: str) -> None:
        self.prompt.load_text(text)
        self.prompt.move_cursor(self.prompt.document.end)
        self.prompt.focus()

    def run_slash(self, line: str) -> None:
        parsed = parse_slash(line)
        assert parsed is not None
        name, argument = parsed
        command = self.slash_commands.get(name)
        if command is None:
            self.conversation.add_notice("warning", f"unknown command /{name}: /help lists them")
            return
        if command.prompt:
            self._send(line)  # the session sends the command's prompt
            return
        if self.working and name in ("clear", "resume", "compact", "undo", "rewind"):
            self.conversation.add_notice("warning", f"/{name} waits for the current answer (Esc interrupts it)")
            return
        try:
            getattr(self, f"_command_{name}")(argument)
        except NeoCodeError as exc:
            self.conversation.add_notice("warning", str(exc))

    def _command_help(self, _: str) -> None:
        self.action_key_help()

    def _command_clear(self, _: str) -> None:
        self.session.clear()

    def _command_model(self, argument: str) -> None:
        profiles = self.profiles.names if self.profiles is not None else []
        if not argument:
            listed = f"; profiles: {', '.join(profiles)}" if profiles else ""
            self.conversation.add_notice(
                "info", f"model: {self.session.model} ({self.provider.name}){listed}"
            )
            return
        if self.profiles is not None and argument in profiles:
            if self.working:
                self.conversation.add_notice(
                    "warning", "switching profiles waits for the current answer (Esc interrupts it)"
                )
                return
            settings = self.profiles.load(argument)  # SettingsError: shown by run_slash
            self._start_task(self._use_profile(argument, settings))
            return
        self.session.model = argument
        self.status.model = argument
        self._show_context()
        self.conversation.add_notice("info", f"model switched to {argument}")

    async def _use_profile(self, name: str, settings: Settings) -> None:
        await self.session.use_settings(settings)
        self.settings = settings
        self._show_settings()
        self.conversation.add_notice(
            "info",
            f"profile {name}: {settings.resolved_provider} · {settings.resolved_model}"
            + (f" · {settings.resolved_base_url}" if settings.resolved_base_url else ""),
        )

    def _command_approval(self, argument: str) -> None:
        if argument not in APPROVAL_MODES:
            self.conversation.add_notice(
                "info" if not argument else "warning",
                f"approval is {self.session.approval}; choose one of: {', '.join(APPROVAL_MODES)}",
            )
            return
        self._set_mode(argument)

    def _command_theme(self, argument: str) -> None:
        if argument not in self.available_themes:
            names = ", ".join(sorted(self.available_themes))
            prefix = f"unknown theme {argument!r}. " if argument else f"theme is {self.theme}. "
            self.conversation.add_notice("info" if not argument else "warning", prefix + "Themes: " + names)
            return
        self.theme = argument

    def _command_sessions(self, _: str) -> None:
        sessions = self.session.saved_sessions()
        if not sessions:
            self.conversation.add_notice("info", "no saved sessions for this folder yet")
            return
        lines = [f"{info.id}  {info.updated:%Y-%m-%d %H:%M}  {info.title}" for info in sessions[:20]]
        self.conversation.add_notice("info", "\n".join([*lines, "", "/resume ID loads one"]))

    def _command_resume(self, argument: str) -> None:
        if argument:
            self.session.resume(argument)
        else:
            self._open_session_picker()

    # -- picking a saved session ----------------------------------------------------------

    def _open_session_picker(self, then: Callable[[], None] = lambda: None) -> None:
        """The picker over this folder's other sessions; ``then`` runs once it is closed."""
        sessions = self.session.saved_sessions()
        if not sessions:
            self.conversation.add_notice("info", "no saved sessions for this folder yet")
            then()
            return

        def picked(session_id: str | None) -> None:
            if session_id is not None:
                try:
                    self.session.resume(session_id)
                except NeoCodeError as exc:
                    self.conversation.add_notice("warning", str(exc))
            then()

        from neocode_tui.tui.session_picker import SessionPicker  # after the first frame (start-up)

        self.push_screen(SessionPicker(sessions), picked)

    def _command_compact(self, argument: str) -> None:
        if not self.session.messages:
            self.conversation.add_notice("info", "nothing to compact yet")
            return
        self.conversation.add_notice("info", "compacting: asking the model for a summary…")
        self._start_task(self.session.compact(argument))

    def _command_context(self, _: str) -> None:
        from neocode_tui.agent.reports import context_report  # after the first frame (start-up)

        self.conversation.add_notice("info", context_report(self.session))

    def _command_cost(self, _: str) -> None:
        from neocode_tui.agent.reports import cost_report  # after the first frame (start-up)

        self.conversation.add_notice("info", cost_report(self.session))

    def _command_mcp(self, argument: str) -> None:
        from neocode_tui.agent.mcp import status_text  # after the first frame (start-up)

        verb, _, name = argument.partition(" ")
        if not verb:
            mcp = self.session.mcp
            self.conversation.add_notice("info", status_text(mcp.status(), mcp.problems))
        elif verb == "restart" and name.strip():
            self.conversation.add_notice("info", f"restarting MCP server {name.strip()}…")
            self.run_worker(self._restart_mcp(name.strip()))
        else:
            self.conversation.add_notice("warning", "usage: /mcp (list the servers) or /mcp restart NAME")

    async def _restart_mcp(self, name: str) -> None:
        try:
            status = await self.session.mcp.restart(name)
        except NeoCodeError as exc:
            self.conversation.add_notice("warning", str(exc))
            return
        from neocode_tui.agent.mcp import status_text  # after the first frame (start-up)

        self.conversation.add_notice(
            "info" if status.state == "connected" else "warning", status_text([status], [])
        )

    def _command_quit(self, _: str) -> None:
        self.exit()

    # -- taking back what the agent did -----------------------------------------------------

    def _command_undo(self, _: str) -> None:
        self.run_worker(self._noticing(self._undo()), group="restore")

    def _command_rewind(self, _: str) -> None:
        self.run_worker(self._noticing(self._rewind()), group="restore")

    def _command_diff(self, _: str) -> None:
        self.run_worker(self._noticing(self._diff()), group="restore")

    async def _noticing(self, work: Awaitable[None]) -> None:
        try:
            await work
        except NeoCodeError as exc:
            self.conversation.add_notice("warning", str(exc))
        except OSError as exc:
            self.conversation.add_notice("error", f"could not restore the files: {exc.strerror or exc}")

    async def _undo(self) -> None:
        preview = await self.session.undo_preview()
        if preview is None:
            self.conversation.add_notice(
                "info", "nothing to undo: the file tools changed no files in this conversation"
            )
            return
        from neocode_tui.tui.rewind import RestoreScreen  # after the first frame (start-up)

        if await self.push_screen_wait(RestoreScreen(preview, "undo")) != "files":
            return
        restored = await self.session.undo(preview)
        shown = ", ".join(restored) or "nothing (the files were already as they were)"
        self.conversation.add_notice("info", f"undone: {shown}")

    async def _rewind(self) -> None:
        points = self.session.rewind_points()
        if not points:
            self.conversation.add_notice("info", "nothing to rewind to yet")
            return
        from neocode_tui.tui.rewind import RestoreScreen, RewindScreen  # after the first frame (start-up)

        status = await git_state.status_short(self.workspace)
        number = await self.push_screen_wait(RewindScreen(points, status))
        if number is None:
            return
        preview = await self.session.rewind_preview(number)
        choice = await self.push_screen_wait(RestoreScreen(preview, "rewind"))
        if choice is None:
            return
        self._rewinding = True
        try:
            prompt = await self.session.rewind(preview, files=choice == "both")
        finally:
            self._rewinding = False
        files = "and the files " if choice == "both" else "(the files as they are) "
        self.conversation.add_notice(
            "info", f"rewound the conversation {files}to before this prompt; it is in the input to edit"
        )
        self.prefill_input(prompt)

    async def _diff(self) -> None:
        diff = await self.session.diff()
        if not diff.text.strip():
            where = "in the repository" if diff.source == "git" else "by the file tools in this conversation"
            self.conversation.add_notice("info", f"no changes {where}")
            return
        title = (
            "git diff HEAD: everything not committed, commands' changes included"
            if diff.source == "git"
            else "What the file tools changed in this conversation (bash changes are not tracked)"
        )
        from neocode_tui.tui.rewind import DiffScreen  # after the first frame (start-up)

        self.push_screen(DiffScreen(title, diff.text))
