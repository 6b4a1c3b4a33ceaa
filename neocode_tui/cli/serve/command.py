"""``neocode serve``: the app in a browser tab, served by textual-serve.

Each browser tab that connects gets its own ``neocode`` process in this folder, with the
setting flags ``serve`` was given; textual-serve carries its screen and keys over a
websocket. The app runs commands as the user who started it, so the server listens on
127.0.0.1 unless told otherwise, and answers only to its own names and pages and to whoever
shows its token (``serve_guard``), which the user gets in the URL it prints.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
from pathlib import Path
from urllib.parse import quote

from neocode_tui.cli.options import add_setting_flags, load_from_args
from neocode_tui.cli.serve.token import remove_if_ours, take_token, url_file
from neocode_tui.errors import NeoCodeError
from neocode_tui.paths import write_private
from neocode_tui.terminal_text import for_stream


def setting_argv(args: argparse.Namespace) -> list[str]:
    """The setting flags given (before or after ``serve``), as the served app's arguments."""
    flags = argparse.ArgumentParser(add_help=False)
    add_setting_flags(flags)
    argv: list[str] = []
    for action in flags._actions:
        value = getattr(args, action.dest, None)
        if value is None or value is False:
            continue
        argv.append(action.option_strings[-1])
        if action.nargs != 0:
            argv.append(str(value))
    return argv


def run_serve(args: argparse.Namespace) -> int:
    try:
        token = take_token()  # first: out of the environment before anything is started
        load_from_args(args, Path.cwd())  # bad settings are refused here, not in each tab
    except NeoCodeError as exc:
        print(for_stream(f"neocode: {exc}", sys.stderr), file=sys.stderr)  # it may quote a .env
        return exc.exit_code
    from textual_serve.server import Server

    from neocode_tui.cli.serve.app import build_app, serve_until_stopped
    from neocode_tui.cli.serve.guard import Addresses, Guard

    addresses = Addresses(args.host, args.port)
    if not addresses.loopback_only:
        print(
            f"neocode: warning: listening on {args.host}: whoever reaches this address and has "
            "the token can run commands in this folder as you, and plain http carries the token "
            "unencrypted",
            file=sys.stderr,
        )
    command = shlex.join([sys.executable, "-m", "neocode_tui", *setting_argv(args)])
    server = Server(command, host=args.host, port=args.port, title="NeoCode")
    server.initialize_logging()
    app = build_app(server, Guard(token, addresses, args.max_sessions))
    url = f"{addresses.url}?token={quote(token, safe='')}"
    saved = url_file(args.port)
    try:
        asyncio.run(serve_until_stopped(
            app, args.host, args.port, lambda: _announce(url, saved, args.max_sessions)
        ))
    except OSError as exc:
        print(f"neocode: cannot serve on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    finally:
        remove_if_ours(saved, url + "\n")
    return 0


def _announce(url: str, saved: Path, max_sessions: int) -> None:
    """Once the server listens: the URL to open, saved for the user to find again."""
    try:
        write_private(saved, (url + "\n").encode())
        kept = f"It is saved in {saved} (only you can read it) until the server stops."
    except OSError as exc:
        kept = f"It could not be saved in {saved}: {exc.strerror or exc}."
    print(f"NeoCode is served at {url}\n{kept}\n"
          f"Each tab runs neocode in {Path.cwd()} as you (at most {max_sessions} at once). "
          "Ctrl+C stops the server.", flush=True)
