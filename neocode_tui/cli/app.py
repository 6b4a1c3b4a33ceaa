"""``neocode`` with no subcommand: the app, and the settings from flags, environment,
``.env`` and ``config.toml`` (loaded once its first frame is drawn, unless it resumes)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from neocode_tui.agent import refuse_too_wide
from neocode_tui.agent.sandbox import probe_early
from neocode_tui.cli.options import load_from_args
from neocode_tui.deferred import pause_collections
from neocode_tui.errors import NeoCodeError
from neocode_tui.terminal_text import for_stream

if TYPE_CHECKING:
    from neocode_tui.tui import Loaded, NeoCodeApp


def run_app(args: argparse.Namespace) -> int:
    pause_collections()  # until the app has built what lives as long as it (deferred.py)
    probe_early()
    workspace = Path.cwd()
    from neocode_tui.tui import NeoCodeApp, Starting

    starting = Starting(lambda: load(args, workspace), theme=args.theme, approval=args.approval)
    # --continue loads the latest; --resume without an ID opens the session picker.
    pick_session = args.resume == "" and not args.continue_
    resume = "" if args.continue_ else (args.resume or None)
    try:
        refuse_too_wide(workspace)  # before anything is drawn
        if resume is None and not pick_session:
            # The settings load right after the first frame; a bad one ends the app there.
            app = NeoCodeApp(
                workspace=workspace, initial_prompt=args.initial_prompt, starting=starting
            )
        else:
            # A session that is not there must fail before anything is drawn: settings first.
            loaded = starting.load()
            app = NeoCodeApp(
                loaded.settings, loaded.provider, workspace=workspace,
                initial_prompt=args.initial_prompt, resume=resume, untrusted=loaded.untrusted,
                pick_session=pick_session, profiles=loaded.profiles,
            )
    except NeoCodeError as exc:
        print(for_stream(f"neocode: {exc}", sys.stderr), file=sys.stderr)
        return exc.exit_code
    app.run()
    if app.start_error is not None:
        print(for_stream(f"neocode: {app.start_error}", sys.stderr), file=sys.stderr)
        return app.start_error.exit_code
    session = app.made_session
    if session is not None and session.settings.exit_transcript:
        from neocode_tui.cli.scrollback import print_conversation

        print_conversation(session, sys.stdout)
        sys.stdout.flush()
    print(exit_line(app), file=sys.stderr)
    return app.return_code or 0


def load(args: argparse.Namespace, workspace: Path) -> Loaded:
    """The settings and what the app needs with them; ``NeoCodeError`` when they are bad."""
    from neocode_tui.providers import LIVE_RATE, offline_provider
    from neocode_tui.settings import Profiles, TrustRequest
    from neocode_tui.tui import Loaded

    loaded = load_from_args(args, workspace)
    settings = loaded.settings
    # Someone is watching: the offline model streams at a pace the eye can follow.
    provider = offline_provider(model=settings.resolved_model, rate=LIVE_RATE) if settings.offline else None
    untrusted = None
    if loaded.ignored_names or not getattr(args, "trust", False):
        # Also in a trusted folder: a server or hook added since it was trusted asks again.
        untrusted = TrustRequest(
            loaded.ignored_names, loaded.ignored,
            lambda: load_from_args(args, workspace, trusted=True).settings,
            programs=lambda: workspace_programs(workspace),
        )
    profiles = Profiles(
        loaded.profiles, lambda name: load_from_args(args, workspace, profile=name).settings
    )
    return Loaded(settings, provider, untrusted, profiles)


def workspace_programs(workspace: Path) -> list[str]:
    """What the folder's own files would run (MCP servers, hooks) that may not run until
    the user trusts it (again, for a file new or changed since)."""
    from neocode_tui.agent.extensions import load_hooks
    from neocode_tui.agent.mcp import load_configs
    from neocode_tui.protected_files import MCP_FILE

    wanted = []
    configs = load_configs(workspace)
    servers = [entry.name for entry in configs.servers if entry.source == "workspace"]
    if servers and configs.untrusted:
        wanted.append(f"{MCP_FILE} servers{_changed(configs.untrusted)}: "
                      f"{', '.join(servers)}")
    for name, (hooks, why) in load_hooks(workspace).held.items():
        events = sorted({hook.event for hook in hooks})
        wanted.append(f"{name} hooks{_changed(why)}: {', '.join(events)}")
    return wanted


def _changed(untrusted: str) -> str:
    """How the question marks a file that changed in a folder already trusted."""
    from neocode_tui.trust import NOT_TRUSTED

    return "" if untrusted == NOT_TRUSTED else " (new or changed since you trusted this folder)"


def exit_line(app: NeoCodeApp) -> str:
    """What the terminal shows after the app: never a dropped turn without a word, and how
    to come back."""
    session = app.made_session
    stopped = "the running turn was interrupted; " if app.quit_while_working else ""
    if session is None or session.id is None:
        return "neocode: nothing was said, so no session was saved"
    if session.stopped_at_close:
        from neocode_tui.agent.processes import stopped_words

        stopped += f"{stopped_words(session.stopped_at_close)}; "
    if not session.saving:
        return f"neocode: {stopped}this session could not be saved"
    return f"neocode: {stopped}session {session.id} saved; continue it with: neocode --continue"
