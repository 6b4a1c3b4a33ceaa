"""The ``neocode`` command. Parses arguments and hands off; heavy imports stay lazy so
``neocode --help`` and ``neocode replay --json`` never import Textual."""

from __future__ import annotations

import argparse
import sys

from neocode_tui import __version__
from neocode_tui.cli.options import add_setting_flags
from neocode_tui.vocabulary import DIALECT_NAMES


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="neocode",
        description="A terminal UI for an LLM coding agent working in the current folder.",
    )
    parser.add_argument("--version", action="version", version=f"neocode {__version__}")
    add_setting_flags(parser)
    parser.add_argument("-p", "--print", dest="prompt", metavar="PROMPT",
                        help="run one prompt headless and exit ('-' reads stdin)")
    parser.add_argument("--output-format", choices=["text", "json", "stream-json"],
                        default="text", help="headless output (with -p)")
    parser.add_argument("--resume", nargs="?", const="", metavar="ID",
                        help="resume a saved session (the latest when no ID is given)")
    parser.add_argument("--continue", dest="continue_", action="store_true",
                        help="continue the most recent session in this folder")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    replay = sub.add_parser("replay", help="run a recorded SSE stream through the real pipeline")
    replay.add_argument("file", metavar="FILE.sse")
    replay.add_argument("--dialect", choices=["auto", *DIALECT_NAMES], default="auto")
    out = replay.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the collected turn as JSON")
    out.add_argument("--events", action="store_true", help="print one JSON line per event")
    out.add_argument("--tui", action="store_true", help="play the stream in the live app")
    replay.add_argument("--speed", default="max", help="playback speed factor, or 'max'")
    replay.add_argument("--rate", type=float, help="deltas per second (default: as fast as possible)")
    replay.add_argument("--headless", action="store_true", help="with --tui: no terminal")
    replay.add_argument("--exit-when-done", action="store_true",
                        help="with --tui: exit once the whole turn is on screen")

    demo = sub.add_parser("demo", help="run a scripted session, optionally recording it")
    demo.add_argument("script", nargs="?", help="a demo script (default: the built-in one)")
    demo.add_argument("--record", metavar="FILE", help="write FILE.svg (final screen) or FILE.cast")

    sub.add_parser("sessions", help="list saved sessions for this folder")
    acp = sub.add_parser("acp", help="serve the Agent Client Protocol on stdio (for Zed and other editors)")
    add_setting_flags(acp, again=True)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "replay":
        if args.tui:
            from neocode_tui.cli.replay_tui import run_replay_tui

            return run_replay_tui(args)
        from neocode_tui.cli.replay import run_replay

        return run_replay(args)
    if args.command == "demo":
        from neocode_tui.cli.demo import run_demo

        return run_demo(args)
    if args.command == "sessions":
        from neocode_tui.cli.sessions import print_sessions

        return print_sessions(args)
    if args.command == "acp":
        from neocode_tui.cli.acp import run_acp

        return run_acp(args)
    if args.prompt is not None or not sys.stdin.isatty():
        from neocode_tui.cli.headless import run_headless

        return run_headless(args)
    from neocode_tui.cli.app import run_app

    return run_app(args)
