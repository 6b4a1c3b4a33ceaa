"""``neocode`` with no subcommand: the settings from flags, environment and ``.env``, then the app."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from neocode_tui.cli.options import load_from_args
from neocode_tui.errors import NeoCodeError


def run_app(args: argparse.Namespace) -> int:
    workspace = Path.cwd()
    try:
        loaded = load_from_args(args, workspace)
    except NeoCodeError as exc:
        print(f"neocode: {exc}", file=sys.stderr)
        return exc.exit_code
    from neocode_tui.providers.offline import LIVE_RATE, offline_provider
    from neocode_tui.settings import TrustRequest
    from neocode_tui.tui.app import NeoCodeApp

    settings = loaded.settings
    # Someone is watching: the offline model streams at a pace the eye can follow.
    offline = settings.resolved_provider == "scripted"
    provider = offline_provider(model=settings.resolved_model, rate=LIVE_RATE) if offline else None
    resume = "" if args.continue_ else args.resume
    untrusted = None
    if loaded.ignored_names:
        untrusted = TrustRequest(
            loaded.ignored_names, loaded.ignored,
            lambda: load_from_args(args, workspace, trusted=True).settings,
        )
    try:
        app = NeoCodeApp(settings, provider, workspace=workspace, resume=resume, untrusted=untrusted)
    except NeoCodeError as exc:
        print(f"neocode: {exc}", file=sys.stderr)
        return exc.exit_code
    app.run()
    return app.return_code or 0
