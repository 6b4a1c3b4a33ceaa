"""``neocode`` with no subcommand: the settings from flags, environment, ``.env`` and
``config.toml``, then the app."""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from neocode_tui.agent.sandbox import probe_early
from neocode_tui.cli.options import load_from_args
from neocode_tui.errors import NeoCodeError

if TYPE_CHECKING:
    from neocode_tui.tui.app import NeoCodeApp


def run_app(args: argparse.Namespace) -> int:
    # Start-up builds what lives as long as the app and frees little: collections would only
    # slow it down (tens of ms). The app freezes it all once its session is made, then turns
    # them back on.
    gc.disable()
    probe_early()
    workspace = Path.cwd()
    try:
        loaded = load_from_args(args, workspace)
    except NeoCodeError as exc:
        print(f"neocode: {exc}", file=sys.stderr)
        return exc.exit_code
    from neocode_tui.providers.offline import LIVE_RATE, offline_provider
    from neocode_tui.settings import Profiles, TrustRequest
    from neocode_tui.tui.app import NeoCodeApp

    settings = loaded.settings
    # Someone is watching: the offline model streams at a pace the eye can follow.
    offline = settings.resolved_provider == "scripted"
    provider = offline_provider(model=settings.resolved_model, rate=LIVE_RATE) if offline else None
    # --continue loads the latest; --resume without an ID opens the session picker.
    pick_session = args.resume == "" and not args.continue_
    resume = "" if args.continue_ else (args.resume or None)
    untrusted = None
    if loaded.ignored_names or not loaded.trusted:
        untrusted = TrustRequest(
            loaded.ignored_names, loaded.ignored,
            lambda: load_from_args(args, workspace, trusted=True).settings,
            programs=list if loaded.trusted else lambda: workspace_programs(workspace),
        )
    profiles = Profiles(
        loaded.profiles, lambda name: load_from_args(args, workspace, profile=name).settings
    )
    try:
        app = NeoCodeApp(
            settings, provider, workspace=workspace, initial_prompt=args.initial_prompt,
            resume=resume, untrusted=untrusted, pick_session=pick_session, profiles=profiles,
        )
    except NeoCodeError as exc:
        print(f"neocode: {exc}", file=sys.stderr)
        return exc.exit_code
    app.run()
    print(exit_line(app), file=sys.stderr)
    return app.return_code or 0


def workspace_programs(workspace: Path) -> list[str]:
    """What the folder's own files would run (MCP servers, hooks): only once it is trusted."""
    from neocode_tui.agent import hooks, mcp

    wanted = []
    servers = [
        entry.name for entry in mcp.config.load_configs(workspace).servers if entry.source == "workspace"
    ]
    if servers:
        wanted.append(f"{mcp.config.WORKSPACE_FILE} servers: {', '.join(servers)}")
    events = sorted({hook.event for hook in hooks.load_hooks(workspace).blocked})
    if events:
        wanted.append(f"{hooks.WORKSPACE_FILE} hooks: {', '.join(events)}")
    return wanted


def exit_line(app: NeoCodeApp) -> str:
    """What the terminal shows after the app: never a dropped turn without a word, and how
    to come back."""
    session = app.session
    stopped = "the running turn was interrupted; " if app.quit_while_working else ""
    if session.id is None:
        return "neocode: nothing was said, so no session was saved"
    if not session.saving:
        return f"neocode: {stopped}this session could not be saved"
    return f"neocode: {stopped}session {session.id} saved; continue it with: neocode --continue"
