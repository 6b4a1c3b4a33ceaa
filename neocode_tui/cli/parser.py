"""``neocode``'s arguments: the parser and the prompt a bare word gives. It imports none of
the commands it parses for, so any of them (``config --reference`` reads its flags) may
import it, and ``neocode --help`` loads nothing else."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TypeAlias

from neocode_tui import __version__
from neocode_tui.cli.options import add_automation_flags, add_setting_flags
from neocode_tui.vocabulary import DIALECT_NAMES

if TYPE_CHECKING:  # argparse's class takes no subscript at run time
    Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="neocode",
        description="A terminal UI for an LLM coding agent working in the current folder.",
    )
    parser.add_argument("--version", action="version", version=f"neocode {__version__}")
    add_setting_flags(parser)
    add_automation_flags(parser)
    parser.add_argument("-p", "--print", dest="prompt", metavar="PROMPT", nargs="?", const="-",
                        help="run one prompt headless and exit ('-' or nothing: read stdin)")
    parser.add_argument("--output-format", choices=["text", "json", "stream-json"],
                        default="text", help="headless output (with -p)")
    parser.add_argument("--input-format", choices=["text", "stream-json"], default="text",
                        help="with -p: stream-json reads user messages as JSON lines on stdin, "
                        "one session answering each in turn (needs --output-format stream-json)")
    parser.add_argument("--permission-prompt-tool", choices=["stdio"],
                        help="with --input-format stream-json: ask about calls that need a yes "
                        "with a can_use_tool control request on stdout")
    parser.add_argument("--resume", nargs="?", const="", metavar="ID",
                        help="resume a saved session (no ID: pick one from a list; with -p: the latest)")
    parser.add_argument("--continue", dest="continue_", action="store_true",
                        help="continue the most recent session in this folder")
    parser.add_argument("-w", "--worktree", nargs="?", const="", metavar="NAME",
                        help="work in a new git worktree, .neocode/worktrees/NAME on branch "
                        "worktree-NAME (no NAME: one is made up); removed on quitting if nothing changed")
    parser.set_defaults(initial_prompt=None)  # a bare prompt: see split_initial_prompt
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_replay(sub)
    _add_demo(sub)
    sub.add_parser("sessions", help="list saved sessions for this folder")
    _add_config(sub)
    acp = sub.add_parser("acp", help="serve the Agent Client Protocol on stdio (for Zed and other editors)")
    add_setting_flags(acp, again=True)
    _add_serve(sub)
    sub.add_parser("login", help="set the model provider and its API key (asked in the terminal, kept in config.toml)")
    _add_trajectories(sub)
    return parser


def _add_trajectories(sub: Commands) -> None:
    export = sub.add_parser("export", help="write a saved session as an ATIF trajectory (or Markdown)")
    export.add_argument("session", metavar="SESSION", nargs="?", default="",
                        help="the session's id or id prefix (default: the latest in this folder)")
    export.add_argument("--format", choices=["atif", "markdown"], default="atif",
                        help="atif: the Agent Trajectory Interchange Format (JSON); markdown: to read")
    export.add_argument("-o", "--output", metavar="FILE", help="write FILE (never over one) instead of stdout")
    imported = sub.add_parser("import", help="save a Claude Code or Codex session file as a NeoCode session")
    imported.add_argument("file", metavar="FILE", help="a Claude Code session (.jsonl) or a Codex rollout (.jsonl)")


def _add_replay(sub: Commands) -> None:
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


def _add_demo(sub: Commands) -> None:
    demo = sub.add_parser(
        "demo", help="run a scripted session, optionally recording it", add_help=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo.add_argument("-h", "--help", action=_DemoHelp, help="show this help and the scripts")
    demo.add_argument("script", nargs="?", help="a demo script (default: the built-in one)")
    demo.add_argument("--record", metavar="FILE", help="write FILE.svg (final screen) or FILE.cast")


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


def _add_config(sub: Commands) -> None:
    config = sub.add_parser(
        "config", help="show the settings a run here would use, and where each came from"
    )
    config.add_argument("--json", action="store_true", help="print them as JSON")
    config.add_argument("--reference", action="store_true",
                        help="print every setting, its flag, variable, default and meaning (Markdown)")
    config.add_argument("--keys", action="store_true",
                        help="list every action's key: the default and yours ([keys] in config.toml)")
    add_setting_flags(config, again=True)


def _add_serve(sub: Commands) -> None:
    serve = sub.add_parser("serve", help="serve the app in a web browser (http://127.0.0.1:8000)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=_number("port", 65535), default=8000,
                       help="port to listen on (default 8000)")
    serve.add_argument("--max-sessions", type=_number("number of sessions", 1000), default=4,
                       help="browser tabs served at once, each its own neocode process (default 4)")
    add_setting_flags(serve, again=True)


def _number(what: str, most: int) -> argparse._ActionType:
    def parse(text: str) -> int:
        if not text.isdigit() or not 0 < int(text) <= most:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {what} (1-{most})")
        return int(text)
    return parse


COMMANDS = ("replay", "demo", "sessions", "config", "acp", "serve", "login", "export", "import")
OPTIONAL_VALUES = ("--resume", "-p", "--print", "-w", "--worktree")
"""Flags whose value may be left out."""


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
            if word in OPTIONAL_VALUES:  # an optional value: what follows that is not a flag
                following = argv[position + 1] if position + 1 < len(argv) else "-"
                takes_value = not following.startswith("-")
            position += 2 if takes_value else 1
            continue
        if word in COMMANDS:
            return argv, None
        return argv[:position] + argv[position + 1 :], word
    return argv, None
