"""The app's start-up, in order: the first frame with what is known without the settings,
the settings (loaded once, right after that frame), the session, the trust question if
the folder asks for more than an untrusted one may, then what start-up had to say and the
first prompt (or the session picker).

A collaborator of ``NeoCodeApp``, which owns the widgets and the session: this piece owns
only what start-up needs to remember (what loads the settings, the notices, the trust
request) and says through the app's widgets what it finds.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

from neocode_tui.agent.commands import run_command
from neocode_tui.agent.sandbox import choose_sandbox
from neocode_tui.errors import NeoCodeError
from neocode_tui.trust import trust
from neocode_tui.vocabulary import is_offline

if TYPE_CHECKING:
    from neocode_tui.providers import Provider
    from neocode_tui.settings.load import TrustRequest
    from neocode_tui.tui.app import NeoCodeApp
    from neocode_tui.tui.starting import Starting


class StartUp:
    """``starting``: what loads the settings, None when the app was handed them."""

    def __init__(
        self, app: NeoCodeApp, starting: Starting | None, *, provider: Provider | None,
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
        """The settings and the session now, unless they came with the frame."""
        if self.settings_ready() and not self._session_started:
            self._start_session()

    def settings_ready(self) -> bool:
        """Loads the settings ``starting`` gives, once. False when they are not usable: the
        app then ends at once with their error, which ``neocode`` prints."""
        starting, app = self._starting, self._app
        if starting is None:
            return self.error is None
        self._starting = None
        try:
            loaded = starting.load()
        except NeoCodeError as exc:
            self.error = exc
            app.exit(return_code=exc.exit_code)
            return False
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
        # Everything imported and built so far lives as long as the app: moved out of the
        # collector's sight, it no longer makes full collections (50-100 ms pauses measured
        # by bench/bench_screen.py) stall frames while a long answer streams. ``neocode``
        # starts with collections off (cli/app.py): from here on they run.
        gc.freeze()
        gc.enable()
        wanted = self.untrusted.wanted() if self.untrusted is not None else []
        if wanted:
            from neocode_tui.tui.trust import TrustScreen  # after the first frame (start-up)

            app.push_screen(TrustScreen(app.workspace, wanted), self._trust_answered)
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
        for notice in [*self.notices, *session.mcp.notices()]:
            app.conversation.add_notice("warning", notice)
        app.started_up.set()
        if self.pick_session:
            picking = run_command(session, "resume")
            app.run_worker(app.slash.present(picking, then=self._initial_prompt), group="command")
        else:
            self._initial_prompt()

    def _initial_prompt(self) -> None:
        if self.initial_prompt:
            self._app.start_run(self.initial_prompt)
