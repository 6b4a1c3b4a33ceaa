"""The ``neocode`` command. Parses arguments and hands off; heavy imports stay lazy so
``neocode --help`` and ``neocode replay --json`` never import Textual."""

from __future__ import annotations

import argparse
import os
import sys

from neocode_tui import __version__
from neocode_tui.cli.options import add_automation_flags, add_setting_flags, automation_flags_given
from neocode_tui.cli.serve import add_serve_command
from neocode_tui.paths import folder_problem
from neocode_tui.vocabulary import DIALECT_NAMES


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="neocode",
        description="A terminal UI for an LLM coding agent working in the current folder.",
    )
    parser.add_argument("--version", action="version", version=f"neocode {__version__}")
    add_setting_flags(parser)
    add_automation_flags(parser)
    parser.add_argument("-p", "--print", dest="prompt", metavar="PROMPT",
                        help="run one prompt headless and exit ('-' reads stdin)")
    parser.add_argument("--output-format", choices=["text", "json", "stream-json"],
                        default="text", help="headless output (with -p)")
    parser.add_argument("--resume", nargs="?", const="", metavar="ID",
                        help="resume a saved session (no ID: pick one from a list; with -p: the latest)")
    parser.add_argument("--continue", dest="continue_", action="store_true",
                        help="continue the most recent session in this folder")
    parser.set_defaults(initial_prompt=None)  # a bare prompt: see split_initial_prompt
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

    demo = sub.add_parser(
        "demo", help="run a scripted session, optionally recording it", add_help=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo.add_argument("-h", "--help", action=_DemoHelp, help="show this help and the scripts")
    demo.add_argument("script", nargs="?", help="a demo script (default: the built-in one)")
    demo.add_argument("--record", metavar="FILE", help="write FILE.svg (final screen) or FILE.cast")

    sub.add_parser("sessions", help="list saved sessions for this folder")
    config = sub.add_parser(
        "config", help="show the settings a run here would use, and where each came from"
    )
    config.add_argument("--json", action="store_true", help="print them as JSON")
    config.add_argument("--reference", action="store_true",
                        help="print every setting, its flag, variable, default and meaning (Markdown)")
    add_setting_flags(config, again=True)
    acp = sub.add_parser("acp", help="serve the Agent Client Protocol on stdio (for Zed and other editors)")
    add_setting_flags(acp, again=True)
    add_serve_command(sub)
    return parser


class _DemoHelp(argparse.Action):
    """``neocode demo --help`` lists the scripts; they are read only then (they need Textual)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=kwargs.get("help"))  # type: ignore[arg-type]

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from neocode_tui.tui.scenarios import SCENARIOS

        width = max(len(name) for name in SCENARIOS) + 2
        lines = [f"  {name:<{width}}{scenario.description}" for name, scenario in SCENARIOS.items()]
        parser.epilog = "scripts:\n" + "\n".join(lines)
        parser.print_help()
        parser.exit()


COMMANDS = ("replay", "demo", "sessions", "config", "acp", "serve")
def split_initial_prompt(
    argv: list[str], parser: argparse.ArgumentParser | None = None
) -> tuple[list[str], str | None]:
    """``neocode "fix the failing test"``: the first word that is neither a flag, a flag's
    value nor a command is the prompt the app opens with. ``parser``: ``neocode``'s, when
    already built."""
    value_flags = {
        option
        for action in (parser or build_parser())._actions
        if action.nargs != 0 and action.option_strings
        for option in action.option_strings
    }
    position = 0
    while position < len(argv):
        word = argv[position]
        if word == "--":
            break
        if word.startswith("-"):
            takes_value = word in value_flags
            if word == "--resume":  # an optional value: whatever follows that is not a flag
                following = argv[position + 1] if position + 1 < len(argv) else "-"
                takes_value = not following.startswith("-")
            position += 2 if takes_value else 1
            continue
        if word in COMMANDS:
            return argv, None
        return argv[:position] + argv[position + 1 :], word
    return argv, None


def main(argv: list[str] | None = None) -> int:
    _hold_standard_descriptors()
    parser = build_parser()
    argv, initial_prompt = split_initial_prompt(sys.argv[1:] if argv is None else argv, parser)
    args = parser.parse_args(argv)
    if initial_prompt is not None:
        args.initial_prompt = initial_prompt
    if args.command is not None and (given := automation_flags_given(args)):
        print(f"neocode: {', '.join(given)} work with -p (a headless run) only", file=sys.stderr)
        return 2
    if problem := folder_problem():
        print(f"neocode: {problem}", file=sys.stderr)
        return 2
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
    if args.command == "config":
        from neocode_tui.cli.config_report import print_config

        return print_config(args)
    if args.command == "acp":
        from neocode_tui.cli.acp import run_acp

        return run_acp(args)
    if args.command == "serve":
        from neocode_tui.cli.serve import run_serve

        return run_serve(args)
    # Served by textual-serve, the app draws through Textual's web driver: a browser tab is
    # its screen, though stdin is a pipe.
    has_screen = (sys.stdin is not None and sys.stdin.isatty()) or "TEXTUAL_DRIVER" in os.environ
    if initial_prompt is not None and args.prompt is None and not has_screen:
        args.prompt = initial_prompt  # no terminal to open the app in: run it headless
    if args.prompt is not None or not has_screen:
        from neocode_tui.cli.headless import run_headless

        return run_headless(args)
    if given := automation_flags_given(args):
        print(f"neocode: {', '.join(given)} work with -p (a headless run) only", file=sys.stderr)
        return 2
    from neocode_tui.cli.app import run_app

    return run_app(args)


def _hold_standard_descriptors() -> None:
    """Started with stdin, stdout or stderr closed (``0<&-``), the first file opened would
    take that number: a session file read as keys, or handed to a child as its input. Each
    closed one is held by /dev/null instead (``sys.stdin`` stays None: it is still closed
    for everything that asks)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            os.open(os.devnull, os.O_RDWR)  # the lowest free number: this one, in order
