"""The NeoCode app: a conversation, an input box and a status bar around one agent session.

The app owns no agent logic. It hands prompts and commands to its ``AgentSession``, draws
the session's events (the conversation view buffers them per frame, the status bar counts),
answers approval requests with a modal, and asks the session to cancel on Esc. A new prompt
starts only once the previous one is done, so a cancelled run's events cannot land in the
next one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.app import App, ComposeResult
from textual.driver import Driver
from textual.filter import LineFilter
from textual.screen import Screen

from neocode_tui import __version__
from neocode_tui.agent.commands import parse_command
from neocode_tui.deferred import lazy
from neocode_tui.errors import NeoCodeError
from neocode_tui.tui.app_keys import AppKeys
from neocode_tui.tui.asking import Asking
from neocode_tui.tui.attention import notification, waiting_for_user
from neocode_tui.tui.browser import open_in_browser
from neocode_tui.tui.commands import SlashCommandsProvider
from neocode_tui.tui.control_filter import ControlFilter
from neocode_tui.tui.conversation import ConversationView
from neocode_tui.tui.image_attach import ImageAttaching
from neocode_tui.tui.key_actions import KeyActions
from neocode_tui.tui.slash import SlashLine
from neocode_tui.tui.start_up import StartUp
from neocode_tui.tui.steering import Steering
from neocode_tui.tui.themes import ThemeChoice, discover_themes
from neocode_tui.tui.vi_command import toggle_vi
from neocode_tui.tui.widgets import (
    ImageChips,
    MentionPicker,
    PromptInput,
    QueuedPrompts,
    SearchBar,
    SlashCompletion,
    StatusBar,
    TodoList,
    TranscriptSearchBar,
    load_earlier,
)

if TYPE_CHECKING:
    from neocode_tui import agent
    from neocode_tui.agent import LoopEvent, extensions
    from neocode_tui.agent import session as sessions
    from neocode_tui.agent.session import AgentSession
    from neocode_tui.chat import Message
    from neocode_tui.providers import Provider
    from neocode_tui.settings import Profiles, Settings, TrustRequest
    from neocode_tui.tui import clipboard, editor, screens
    from neocode_tui.tui.keymap import KeyMap
    from neocode_tui.tui.starting import Starting
    from neocode_tui.tui.widgets.status_line import StatusLineRow
else:  # after the first frame (neocode_tui/deferred.py)
    agent, sessions = lazy("neocode_tui.agent"), lazy("neocode_tui.agent.session")
    extensions = lazy("neocode_tui.agent.extensions")
    clipboard, editor = lazy("neocode_tui.tui.clipboard"), lazy("neocode_tui.tui.editor")
    screens = lazy("neocode_tui.tui.screens")

CONTROL_FILTER = ControlFilter()

class _MainScreen(Screen[None]):
    AUTO_FOCUS = "#prompt"
    """Focused as the screen is mounted, so keys typed while the app starts go into the
    input (the dialogs keep Textual's default: their first focusable widget)."""


class NeoCodeApp(KeyActions, ImageAttaching):
    """Run with ``NeoCodeApp(settings, provider).run()``; everything else is optional.

    ``clock``, ``version`` and ``blink`` (the cursor's; off also turns animations off) exist
    so snapshots and demo recordings are the same on every run.
    """

    CSS_PATH = "app.tcss"
    TITLE = "NeoCode"
    COMMANDS = App.COMMANDS | {SlashCommandsProvider}
    # The keys (tui/keymap) are bound per app, by ``AppKeys``: the user may have moved them.
    status_line: StatusLineRow | None = None
    """The user's status-line command's row, when one is configured."""

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
        self.keys = AppKeys(self)
        if settings is not None:
            self.settings = settings
        assert settings is not None or starting is not None, "settings, or what loads them"
        self.start_up = StartUp(
            self, None if settings is not None else starting, provider=provider, untrusted=untrusted,
            notices=list(notices or ()), pick_session=pick_session, initial_prompt=initial_prompt,
        )
        self.workspace = (workspace or Path.cwd()).resolve()
        self.slash = SlashLine(
            self, {"help": lambda _: self.action_key_help(), "theme": self._set_theme, "quit": self._quit,
             "exit": self._quit, "copy": self._copy,
             "vim": lambda argument: toggle_vi(self.prompt, self.conversation.add_notice, argument)},
            {"theme": lambda: sorted(self.available_themes)},
        )
        self.asking = Asking(self, lambda: self.conversation, lambda: self.status)
        self._session: AgentSession | None = None
        self.started_up = asyncio.Event()
        """Set once start-up has said what it had to say (after any start-up question): what
        whoever drives the app (a test, a recording) waits on before reading it, not the clock."""
        self.profiles = profiles
        self.clock = clock
        self.version = version
        self.themes = ThemeChoice(lambda: self.available_themes, remember=remember_theme)
        self.blink = blink
        if not blink:
            self.animation_level = "none"
        themes, self.themes.problems = discover_themes()
        for theme in themes:
            self.register_theme(theme)
        # Set before anything is styled: set once mounted, it would style the screen twice.
        self.theme = self.themes.starting(self.start_up.theme)
        if resume is not None:
            self.session.resume(resume or None)  # before the screen exists: no event drawn
        self._work: asyncio.Task[None] | None = None
        """The one piece of work in progress (a run or a compaction): Esc cancels it."""
        self.quit_while_working = False
        """Set on the way out: a turn was still running and was interrupted."""

    @property
    def session(self) -> AgentSession:
        """Made when first wanted: once the first frame is drawn, or before it to resume."""
        return self._make_session() if self._session is None else self._session

    @session.setter
    def session(self, session: AgentSession) -> None:
        self._session = session

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then the one that keeps control characters off the terminal."""
        return [*super().get_line_filters(), CONTROL_FILTER]

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver, reading Alt+Enter and xterm's Shift+Enter as what they are."""
        from neocode_tui.tui.key_parser import use_in

        return use_in(super().get_driver_class())

    def get_default_screen(self) -> Screen[None]:
        return _MainScreen(id="_default")

    @property
    def start_error(self) -> NeoCodeError | None:
        """Why the settings ``starting`` loaded are not usable: the app has ended on it."""
        return self.start_up.error

    @property
    def made_session(self) -> AgentSession | None:
        """The session if it was made (the app may end before: a signal, bad settings)."""
        return self._session

    @property
    def provider(self) -> Provider:
        return self.session.provider

    def _make_session(self) -> AgentSession:
        if not self.start_up.settings_ready():
            assert self.start_error is not None
            raise self.start_error  # the app is ending on it
        self._session = self._adopt(self.start_up.session())
        return self._session

    def _adopt(self, session: AgentSession) -> AgentSession:
        self.slash.show_custom(session)
        return session

    def build_session(self, settings: Settings, provider: Provider | None, profiles: Profiles | None) -> AgentSession:
        """Touches no widget (start-up builds it in a thread); its events and questions come
        to the app, which draws them once it is up."""
        asking = self.asking
        front = sessions.FrontEnd(
            listener=self._on_loop_event, approver=asking.approve, elicitor=asking.elicit,
            ask=asking.budget, plan_review=asking.review_plan, open_url=open_in_browser,
            questions=asking.ask_questions,
            stop_key=lambda: self.keys.keymap.first_label("interrupt") or "Ctrl+C",
        )
        return sessions.AgentSession(
            settings, self.workspace, front, provider=provider,
            built_in_commands=self.slash.built_in_names, profiles=profiles, clock=self.clock,
        )

    def compose(self) -> ComposeResult:
        # Held, not queried: the loop keeps reporting while a modal is up or the app closes.
        completion = SlashCompletion(id="completion")
        self.mention_picker = MentionPicker(
            lambda: self.session.files, resources=lambda: self.session.mcp.resource_uris(), id="mentions")
        self.conversation = ConversationView(
            id="conversation", clock=self.clock, jobs=lambda job_id: self.session.jobs.jobs.get(job_id))
        self.queued = QueuedPrompts(id="queued")
        self.steering = Steering(lambda: self.session, self.queued, lambda: self.conversation)
        self.todo_list = TodoList(id="todos")
        self.image_chips = ImageChips(id="images")
        search_bar = SearchBar(id="history-search")
        self.transcript_search = TranscriptSearchBar(
            lambda: self.conversation.finder, self.prompt_focus, id="transcript-search")
        self.prompt = PromptInput(
            completion, self.slash.complete, unqueue=self.steering.take_last,
            mentions=self.mention_picker, drop_image=self.image_chips.drop_last,
            search_bar=search_bar, id="prompt",
        )
        self.prompt.cursor_blink = self.blink
        self.status: StatusBar = StatusBar(self.clock, commands=self._running_commands, id="status")
        yield self.conversation
        yield completion
        yield self.mention_picker
        yield self.todo_list
        yield self.queued
        yield self.image_chips
        yield search_bar
        yield self.transcript_search
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
        where = f"NeoCode {self.version} in {self.workspace.name or self.workspace}"
        self.conversation.add_keyed_notice("info", lambda keys: " · ".join(filter(None, [
            where, "type a task and press Enter", keys.press("key_help", "keys"), "/ commands",
            keys.press("interrupt", "interrupts")])))
        self.start_up.first_frame()
        self.theme_changed_signal.subscribe(self, lambda _: self.themes.keep(self.theme))
        self.prompt.focus()
        self.start_up.with_first_frame()

    def on_ready(self) -> None:
        """The first frame is on screen: the settings and the session now, unless they
        came with the frame."""
        self.start_up.after_first_frame()

    async def on_event(self, event: events.Event) -> None:
        # A key typed while the session is built may need it (F1, /, Enter): it waits.
        if isinstance(event, events.Key) and (self.start_up.holds(event) or self.keys.read_chord(event)):
            return
        await super().on_event(event)

    def use_keys(self, keys: KeyMap) -> None:
        """The user's keys from now on; what is wrong in them is said on screen."""
        names = keys.names()
        self.status.keys = names
        self.queued.later_key = names.later
        self.conversation.use_keys(names)
        for problem in self.keys.use(keys):
            self.conversation.add_notice("warning" if problem in keys.problems else "info", problem)

    def _show_settings(self, *, context: bool = True) -> None:
        self.status.show_session(self.session)
        if context:
            self._show_context()

    def show_session(self) -> None:
        """What the session brings: its model and meter in the status bar, its task list, a
        resumed conversation."""
        self._show_settings(context=False)
        self.run_worker(self._show_context_soon(), group="context")
        self.todo_list.show(self.session.own_tools.todos)
        load_earlier(self.prompt.prompts, self.session)
        if self.session.messages:
            self._show_transcript("resumed", self.session.messages)

    def replace_session(self, settings: Settings) -> None:
        """A new session on ``settings`` (the folder's, once trusted) in place of the one
        start-up made, which closes."""
        old, self.settings = self.session, settings
        self.session = self._adopt(self.build_session(settings, None, self.profiles))
        self.run_worker(old.aclose())
        self.session.files.refresh()
        self._show_settings()

    async def _show_context_soon(self) -> None:
        """The meter, once the model's window is known: it comes from the price list, which
        takes about 0.1 s to load the first time, so that happens in a thread."""
        session = self.session
        await asyncio.to_thread(lambda: session.meter.context_window)
        self._show_context()

    # -- running the agent ----------------------------------------------------------------

    @property
    def working(self) -> bool:
        return self._work is not None and not self._work.done()

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        text = self.session.secrets(event.text.strip())  # a pasted key is never echoed
        if event.later and not text:
            self.steering.toggle_newest()
            return
        if not text and not self.image_chips.attachments:
            return
        if parse_command(text) is not None:
            self.prompt.remember(text)
            self.prompt.clear_sent(event.text)
            self.slash.run(text)
            return
        self.prompt.remember(text)
        self.prompt.clear_sent(event.text)
        if event.later:
            self.steering.later(text)
        else:
            self.send(text)

    def send(self, text: str) -> None:
        if self.working:
            self.steering.send(text)  # into the running turn
            return
        self.start_run(text)

    def start_run(self, prompt: str) -> None:
        attached = self.take_images()
        self.conversation.add_user_message(prompt, attached)
        self.conversation.scroll_to_latest()
        self.start_task(self.session.prompt(prompt, [attachment.image for attachment in attached]))

    def start_task(self, work: Awaitable[object]) -> None:
        self.status.start_work()
        self.todo_list.set_working(True)
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
            self.status.end_work()
            self.todo_list.set_working(False)
            self.prompt.remove_class("-busy")
        if self._on_screen:
            self._after_work(finished)

    def _after_work(self, finished: object) -> None:
        """What the turn never read goes next once a turn ends well, then what was for after
        it, one at a time; after an interrupt or an error they all come back into the input,
        for the user to decide."""
        ended_well = isinstance(finished, agent.RunFinished) and finished.reason in ("done", "turn_limit")
        unread = self.steering.unread()
        if not unread and not self.queued.prompts:
            return
        if ended_well:
            next_prompt = "\n\n".join(unread) if unread else self.queued.take_first()
            assert next_prompt is not None
            self.call_later(self.start_run, next_prompt)
            return
        waiting = "\n\n".join([*unread, *self.queued.take_all()])
        typed = self.prompt.text.strip()
        self.prompt.load_text(f"{waiting}\n\n{typed}" if typed else waiting)
        self.prompt.move_cursor(self.prompt.document.end)

    def _on_loop_event(self, event: LoopEvent) -> None:
        if not self._on_screen:
            return
        if isinstance(event, agent.CommandsChanged):
            self.slash.show_custom(self.session)
            return
        if isinstance(event, agent.TranscriptReplaced):
            self._show_transcript(event.reason, event.messages)
            return
        if isinstance(event, agent.Steered):
            self.steering.read(event.text)
            return
        if event.type == "todo":
            self.todo_list.show(event.todos)
        elif event.type == "mode_changed":
            self.status.approval = event.mode
        if (waiting := waiting_for_user(event)) is not None:
            self.call_attention(waiting)
        if isinstance(event, agent.Notice) and not self.session.loop.running:
            # The session's own word (a compaction, a resume): no run's turn to belong to.
            if event.compaction is not None:
                self.conversation.add_compaction(event.compaction)
            else:
                self.conversation.add_notice(event.level, event.message)
            return
        self.conversation.post(event)
        self.status.track(event, self.session)
        if self.status_line is not None and event.type != "stream":
            self.status_line.changed()
        if isinstance(event, (agent.TurnFinished, agent.RunFinished)):
            self._show_context()

    def call_attention(self, message: str) -> None:
        if self.app_focus or self._driver is None:
            return
        sequence = notification(self.settings.notify, message)
        if sequence:
            self._driver.write(sequence)

    def _show_transcript(self, reason: str, messages: list[Message]) -> None:
        view = self.conversation
        status = self.status
        status.turn_usage = None
        status.session_usage = self.session.usage
        self.run_worker(self._show_context_soon(), group="context")  # not before a resume's first frame
        if reason == "compacted":
            return  # the history stays above; the session's marker notice follows
        view.clear()
        if reason == "cleared":
            status.started_at = None
            return
        view.load_transcript([
            message.model_copy(update={"content": extensions.typed_part(message.content)})
            if message.role == "user" else message
            for message in messages
        ], self.session.child_transcripts)

    def _show_context(self) -> None:
        self.status.show_context(self.session)

    def on_prompt_input_search_missed(self, event: PromptInput.SearchMissed) -> None:
        self.notify(f"No earlier prompt holds {event.query!r}.", timeout=3, markup=False)

    def _running_commands(self) -> int:
        return len(self.made_session.jobs.running) if self.made_session is not None else 0

    def _quit(self, _: str) -> None:
        """/quit: asked first when background commands would stop with it."""
        async def leave() -> None:
            if await screens.confirm_quit(self, self.session.jobs.running, self.status.keys.jobs):
                self.exit()
        self.run_worker(leave())

    async def on_unmount(self) -> None:
        # The session records what was running as interrupted and sends nothing more.
        self.quit_while_working = self.working
        if self._session is not None:
            await self._session.aclose("prompt_input_exit")
        if self._work is not None:
            await asyncio.wait([self._work])

    # -- what the slash commands use ------------------------------------------------------

    def prompt_focus(self) -> None:
        self.prompt.focus()

    def prefill_input(self, text: str) -> None:
        self.prompt.load_text(text)
        self.prompt.move_cursor(self.prompt.document.end)
        self.prompt.focus()

    def edit_file(self, path: Path) -> None:
        editor.edit_in_editor(self, path, self.conversation.add_notice)

    def show_settings(self) -> None:
        if self._on_screen:
            self.settings = self.session.settings
            self._show_settings()

    def _copy(self, argument: str) -> None:
        self.run_worker(clipboard.copy_command(self, argument), group="command")

    def _set_theme(self, argument: str) -> None:
        if argument not in self.available_themes:
            names = ", ".join(sorted(self.available_themes))
            prefix = f"unknown theme {argument!r}. " if argument else f"theme is {self.theme}. "
            self.conversation.add_notice("info" if not argument else "warning", prefix + "Themes: " + names)
            return
        self.theme = argument
        kept = ", kept for next time" if self.themes.remember else ""
        self.conversation.add_notice("info", f"theme: {argument}{kept}")
