"""``neocode serve``: the app in a browser tab, served by textual-serve.

Each browser tab that connects gets its own ``neocode`` process in this folder, with the
setting flags ``serve`` was given; textual-serve carries its screen and keys over a
websocket. The app runs commands as the user who started it, so it listens on 127.0.0.1
unless told otherwise.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from neocode_tui.cli.options import add_setting_flags, load_from_args
from neocode_tui.errors import NeoCodeError
from neocode_tui.terminal_text import for_stream

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def add_serve_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = sub.add_parser("serve", help="serve the app in a web browser (http://127.0.0.1:8000)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=_port, default=8000, help="port to listen on (default 8000)")
    add_setting_flags(serve, again=True)


def _port(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1-65535)")
    return int(text)


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
        load_from_args(args, Path.cwd())  # bad settings are refused here, not in each tab
    except NeoCodeError as exc:
        print(for_stream(f"neocode: {exc}", sys.stderr), file=sys.stderr)  # it may quote a .env
        return exc.exit_code
    from textual_serve.server import Server

    if args.host not in LOOPBACK:
        print(
            f"neocode: warning: listening on {args.host}: whoever reaches this address can run "
            "commands in this folder as you",
            file=sys.stderr,
        )
    command = shlex.join([sys.executable, "-m", "neocode_tui", *setting_argv(args)])
    server = Server(command, host=args.host, port=args.port, title="NeoCode")
    try:
        server.serve()
    except OSError as exc:
        print(f"neocode: cannot serve on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0
