"""The app's start-up, in order: the first frame with what is known without the settings,
the settings and the session (loaded and built in a thread right after that frame, while
the input already takes what is typed), the trust question if the folder asks for more
than an untrusted one may, then what start-up had to say and the first prompt (or the
session picker). What runs after the first frame is listed in one ``AfterFirstFrame``
(neocode_tui/deferred.py).

A collaborator of ``NeoCodeApp`` (its ``StartUpHost``), which owns the widgets and the
session: this piece owns only what start-up needs to remember (what loads the settings, the
notices, the trust request) and says through the app's widgets what it finds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from textual import events

from neocode_tui.agent.commands import run_command
from neocode_tui.agent.sandbox import choose_sandbox
from neocode_tui.deferred import AfterFirstFrame, Once, lazy, resume_collections, warm
from neocode_tui.errors import NeoCodeError
from neocode_tui.trust import trust
from neocode_tui.vocabulary import is_offline

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widget import Widget

    from neocode_tui.agent.session import AgentSession
    from neocode_tui.providers import Provider
    from neocode_tui.settings import Profiles, Settings, TrustRequest
    from neocode_tui.tui import keymap
    from neocode_tui.tui.conversation import ConversationView, markdown
    from neocode_tui.tui.keymap import KeyMap
    from neocode_tui.tui.screens import trust as trust_screen
    from neocode_tui.tui.slash import SlashLine
    from neocode_tui.tui.starting import Loaded, Starting
    from neocode_tui.tui.themes import ThemeChoice
    from neocode_tui.tui.widgets.prompt import PromptInput
    from neocode_tui.tui.widgets.status import StatusBar
    from neocode_tui.tui.widgets.status_line import StatusLineRow
else:
    trust_screen = lazy("neocode_tui.tui.screens.trust")
    markdown = lazy("neocode_tui.tui.conversation.markdown")
    keymap = lazy("neocode_tui.tui.keymap")

TYPING = frozenset({"backspace", "delete", "left", "right", "home", "end"})
"""Keys that only edit the input's text, like a printable character (but ``/`` and ``@``,
which open lists that need the session)."""


class StartUpHost(Protocol):
    """The app, as far as its start-up needs it: the settings it runs on, the widgets that
    say what start-up finds, and the session it makes."""

    settings: Settings
    profiles: Profiles | None
    theme: str
    workspace: Path
    started_up: asyncio.Event

    @property
    def session(self) -> AgentSession: ...

    @property
    def made_session(self) -> AgentSession | None: ...

    @property
    def conversation(self) -> ConversationView: ...

    @property
    def status(self) -> StatusBar: ...

    @property
    def prompt(self) -> PromptInput: ...

    status_line: StatusLineRow | None
    clock: Callable[[], float]

    @property
    def themes(self) -> ThemeChoice: ...

    @property
    def slash(self) -> SlashLine: ...

    @property
    def is_running(self) -> bool: ...

    def build_session(self, settings: Settings, provider: Provider | None, profiles: Profiles | None) -> AgentSession:
        """Thread-safe: touches no widget."""

    def show_session(self) -> None: ...

    def use_keys(self, keys: KeyMap) -> None: ...

    def replace_session(self, settings: Settings) -> None: ...

    def start_run(self, prompt: str) -> None: ...

    def run_worker(self, work: Awaitable[Any], *, group: str) -> Any: ...

    def push_screen(self, screen: Screen[bool], callback: Callable[[bool | None], None]) -> Any: ...

    def post_message(self, message: events.Key) -> bool: ...

    def mount(self, widget: Widget, *, after: Widget) -> Any: ...

    def exit(self, *, return_code: int) -> None: ...


class StartUp:
    """``starting``: what loads the settings, None when the app was handed them."""

    def __init__(
        self, app: StartUpHost, starting: Starting | None, *, provider: Provider | None,
        untrusted: TrustRequest | None, notices: list[str], pick_session: bool, initial_prompt: str | None,
    ) -> None:
        self._app = app
        self._starting = starting
        self.provider = provider
        """The one the first session is made with (None: the settings say)."""
        self.untrusted = untrusted
        self.notices = notices
        self.pick_session = pick_session
        self.initial_prompt = initial_prompt
        self.error: NeoCodeError | None = None
        """Why the settings ``starting`` loaded are not usable: the app has ended on it."""
        self._session_started = False
        self._loaded = Once(starting.load if starting is not None else lambda: None)
        self._built = Once(self._build)
        """The first session, built in a thread after the first frame, or on the loop by
        whatever needs it before (which then waits for the thread if it is at it)."""
        self._keys = _HeldKeys(app) if starting is not None else None
        """While the session is built in a thread: what may need it waits."""
        self._keymap = Once(keymap.load_keymap)
        """The user's keys, read in the thread with the settings (or on the loop when the
        app was handed them)."""

    @property
    def theme(self) -> str | None:
        """The theme the first frame is styled with: the flag's before the settings load."""
        return self._starting.theme if self._starting is not None else self._app.settings.theme

    def first_frame(self) -> None:
        """Without the settings yet it shows the flag's approval (else "ask")."""
        if self._starting is None:
            self._show_settings()
        else:
            self._app.status.approval = self._starting.approval or "ask"

    def with_first_frame(self) -> None:
        """A resumed conversation and what opens over the screen at start (the session
        picker, the trust question) come with the first frame; otherwise the session follows it."""
        untrusted_names = self.untrusted is not None and self.untrusted.names
        if self._app.made_session is not None or self.pick_session or untrusted_names:
            self._start_session()

    def after_first_frame(self) -> None:
        """The settings and the session now (unless they came with the frame), then what
        later screens import, then the collector's turn: each a piece of ``AfterFirstFrame``,
        the loop free for keys meanwhile. Loading the settings and building the session
        takes about 0.2 s of CPU, so it is done in a thread when start-up loads the settings
        (``neocode``); an app handed its settings builds its session on the loop at once."""
        later = AfterFirstFrame(self._report)
        if not self._session_started:
            if self._keys is not None:
                later.add("reading your keys", self._keymap, in_thread=True)
                later.add("loading the settings", self._build_quietly, in_thread=True)
                later.add("starting the session", self._start_if_usable)
            else:
                self._start_if_usable()
        later.add("importing the later screens", warm, in_thread=True)
        later.add("the code highlighter", lambda: markdown.warm_lexers(), in_thread=True)
        # Everything imported and built so far lives as long as the app: out of the
        # collector's sight, it no longer makes full collections (50-100 ms pauses measured
        # by bench/bench_screen.py) stall frames while a long answer streams.
        later.add("the garbage collector", resume_collections)
        self._app.run_worker(later.run(), group="start-up")

    def holds(self, key: events.Key) -> bool:
        """True for a key that must wait for the session (see ``_HeldKeys``)."""
        return self._keys is not None and self._keys.holds(key)

    def session(self) -> AgentSession:
        """The first session (built in the thread or now); the settings are loaded."""
        return self._built()

    def _build(self) -> AgentSession:
        """Thread-safe: loads the settings if ``starting`` gives them, then builds the
        session on them; touches no widget."""
        loaded = self._loaded()
        if loaded is None:
            return self._app.build_session(self._app.settings, self.provider, self._app.profiles)
        return self._app.build_session(loaded.settings, loaded.provider, loaded.profiles)

    def _build_quietly(self) -> None:
        # Bad settings end the app on the loop, and a bug is raised again, and reported,
        # where the session is wanted: ``session()`` raises what ``_build`` raised.
        with suppress(Exception):
            self._built()

    def _start_if_usable(self) -> None:
        if self.settings_ready() and not self._session_started:
            self._start_session()

    def _report(self, problem: str) -> None:
        """A deferred piece failed: said on screen, and start-up goes on."""
        if self._app.is_running:
            self._app.conversation.add_notice("error", f"start-up: {problem}")

    def settings_ready(self) -> bool:
        """Loads the settings ``starting`` gives, once. False when they are not usable: the
        app then ends at once with their error, which ``neocode`` prints."""
        starting, app = self._starting, self._app
        if starting is None:
            return self.error is None
        self._starting = None
        try:
            loaded: Loaded | None = self._loaded()  # from the thread, or loaded now
        except NeoCodeError as exc:
            self.error = exc
            app.exit(return_code=exc.exit_code)
            return False
        assert loaded is not None
        app.settings, self.provider = loaded.settings, loaded.provider
        self.untrusted, app.profiles = loaded.untrusted, loaded.profiles
        if starting.theme is None and app.settings.theme:  # the flag's came first already
            app.theme = app.themes.known(app.settings.theme, app.theme)
        self._show_settings()
        return True

    def _start_session(self) -> None:
        """Start-up's work with the session (importing and setting up the agent takes about
        0.1 s): make it, then show what it and the folder have to say. Runs once the first
        frame is drawn, or before it to resume, pick a session or ask about trust."""
        self._session_started = True
        app = self._app
        app.show_session()
        session = app.session
        if session.messages:
            app.conversation.add_notice("info", f"resumed session {session.id}: {session.title}")
        session.files.refresh()  # in the background: @ has the files when it is typed
        app.themes.keep(app.theme)  # the theme it started with, as when it changes
        app.use_keys(self._keymap())  # before the keys held meanwhile are read
        if self._keys is not None:
            self._keys.release()
        wanted = self.untrusted.wanted() if self.untrusted is not None else []
        if wanted:
            app.push_screen(trust_screen.TrustScreen(app.workspace, wanted), self._trust_answered)
        else:
            self._started()

    def _show_settings(self) -> None:
        """The status bar and notices from what the session will be made with, before it is."""
        app = self._app
        status, settings, provider = app.status, app.settings, self.provider
        status.provider = provider.name if provider else settings.resolved_provider
        status.model = provider.model if provider else settings.resolved_model
        status.approval = settings.approval or "ask"
        status.warn_at = max(settings.compact_threshold - 0.1, 0.05)
        status.sandbox = choose_sandbox(settings.sandbox, settings.sandbox_network).label
        if is_offline(status.provider):
            app.conversation.add_notice(
                "warning",
                "No API key: this is the offline scripted model, a guided tour of what the app "
                "does. Set OPENAI_API_KEY or ANTHROPIC_API_KEY (or a .env file) for a real one.",
            )
        for problem in app.themes.problems:
            app.conversation.add_notice("warning", problem)
        app.themes.problems.clear()

    def _trust_answered(self, trusted: bool | None) -> None:
        request, app = self.untrusted, self._app
        assert request is not None
        if not trusted:
            self.notices.extend(request.ignored)
            self._started()
            return
        trust(app.workspace)
        try:
            settings = request.settings_when_trusted()
        except NeoCodeError as exc:
            app.conversation.add_notice("error", f"the folder's settings are not usable: {exc}")
            self._started()
            return
        app.replace_session(settings)
        app.conversation.add_notice("info", f"trusted {app.workspace}: its .env applies")
        self._started()

    def _started(self) -> None:
        """After any start-up question: what start-up had to say, then the first prompt."""
        app = self._app
        session = app.session
        session.mcp.start()  # in the background: nothing here waits for a server
        self._status_line()
        for notice in [*self.notices, *session.mcp.notices()]:
            app.conversation.add_notice("warning", notice)
        app.started_up.set()
        if self.pick_session:
            picking = run_command(session, "resume")
            app.run_worker(app.slash.present(picking, then=self._initial_prompt), group="command")
        else:
            self._initial_prompt()

    def _status_line(self) -> None:
        """The user's status-line command's row, once the folder's trust is settled (a
        workspace sets the command only when trusted)."""
        from neocode_tui.agent.processes import StatusOutput, run_status_command
        from neocode_tui.agent.session import status_data
        from neocode_tui.tui.widgets.status_line import StatusLineRow

        app = self._app
        config = app.settings.status_line
        if config is None:
            return
        started = app.clock()

        async def run_once() -> StatusOutput:
            session, vi = app.session, app.prompt.vi  # the session now: /clear makes another
            data = status_data(session, elapsed=app.clock() - started,
                               vim_mode=None if vi is None else vi.mode.upper())
            return await run_status_command(config.command, data, cwd=session.workspace,
                                            secrets=session.secrets, timeout=config.timeout_seconds)

        app.status_line = StatusLineRow(run_once, refresh_seconds=config.refresh_seconds, id="status-line")
        app.mount(app.status_line, after=app.status)

    def _initial_prompt(self) -> None:
        if self.initial_prompt:
            self._app.start_run(self.initial_prompt)


class _HeldKeys:
    """Keys typed while the session is being built. Typing goes into the input at once
    (the echo does not wait for the session); the first key that may need the session
    (Enter, F1, ``/``, ``@``, a shortcut) waits, and so does every key after it, to keep
    their order. Once the session is there they are handed to the app again, in order,
    ahead of any key that comes in meanwhile."""

    def __init__(self, app: StartUpHost) -> None:
        self._app = app
        self._held: list[events.Key] = []
        self._replaying: list[events.Key] | None = None

    def holds(self, key: events.Key) -> bool:
        if self._replaying is not None:  # the session is there
            if any(key is replayed for replayed in self._replaying):
                self._replaying.remove(key)
                return False
            if not self._replaying:
                return False
            self._replay(key)  # came in while the held ones go: after them
            return True
        if not self._held and (key.key in TYPING or key.is_printable and (key.character or "/") not in "/@"):
            return False
        self._held.append(key)
        return True

    def release(self) -> None:
        self._replaying = []
        for key in self._held:
            self._replay(key)
        self._held.clear()

    def _replay(self, key: events.Key) -> None:
        assert self._replaying is not None
        self._replaying.append(key)
        self._app.post_message(key)
