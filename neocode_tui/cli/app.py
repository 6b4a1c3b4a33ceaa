"""``neocode`` with no subcommand: settings from env, ``.env`` and flags, then the app."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pydantic import ValidationError

from neocode_tui.config import Settings

_FLAGS = ("provider", "base_url", "model", "approval", "theme", "max_turns")


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Flags given on the command line win over the environment and ``.env``."""
    overrides = {name: value for name in _FLAGS if (value := getattr(args, name, None)) is not None}
    return Settings(**overrides)


def run_app(args: argparse.Namespace) -> int:
    try:
        settings = settings_from_args(args)
    except ValidationError as exc:
        print(f"neocode: bad setting: {exc.errors()[0]['msg']}", file=sys.stderr)
        return 2
    from neocode_tui.agent.store import SessionNotFound
    from neocode_tui.providers.offline import LIVE_RATE, offline_provider
    from neocode_tui.tui.app import NeoCodeApp

    # Someone is watching: the offline model streams at a pace the eye can follow.
    offline = settings.resolved_provider == "scripted"
    provider = offline_provider(model=settings.resolved_model, rate=LIVE_RATE) if offline else None
    resume = "" if args.continue_ else args.resume
    try:
        app = NeoCodeApp(settings, provider, workspace=Path.cwd(), resume=resume)
    except SessionNotFound as exc:
        print(f"neocode: {exc}", file=sys.stderr)
        return 1
    app.run()
    return app.return_code or 0
