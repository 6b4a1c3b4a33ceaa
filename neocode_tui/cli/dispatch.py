"""The ``neocode`` command: parses its arguments (``parser``) and hands off to the one
command asked for; heavy imports stay lazy so ``neocode --help`` and ``neocode replay
--json`` never import Textual."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import types
from collections.abc import Callable

from neocode_tui.cli.options import automation_flags_given
from neocode_tui.cli.parser import build_parser, split_initial_prompt
from neocode_tui.deferred import pause_collections
from neocode_tui.paths import folder_problem

SUBCOMMANDS = {
    "demo": ("neocode_tui.cli.demo", "run_demo"),
    "sessions": ("neocode_tui.cli.sessions", "print_sessions"),
    "config": ("neocode_tui.cli.config_report", "print_config"),
    "serve": ("neocode_tui.cli.serve", "run_serve"),
    "login": ("neocode_tui.cli.login", "run_login"),
    "export": ("neocode_tui.cli.trajectories", "run_export"),
    "import": ("neocode_tui.cli.trajectories", "run_import"),
}
"""The commands that take their arguments and nothing else: where each one's code is,
imported only when it runs."""


def main(argv: list[str] | None = None) -> int:
    _hold_standard_descriptors()
    _skip_httpx_command_line()
    _skip_pydantic_plugins()
    parser = build_parser()
    argv, initial_prompt = split_initial_prompt(sys.argv[1:] if argv is None else argv, parser)
    args = parser.parse_args(argv)
    if initial_prompt is not None:
        args.initial_prompt = initial_prompt
    if args.command is not None and (given := automation_flags_given(args)):
        print(f"neocode: {', '.join(given)} work with -p (a headless run) only", file=sys.stderr)
        return 2
    if args.command is not None and args.worktree is not None:
        print("neocode: --worktree works with the app and -p only", file=sys.stderr)
        return 2
    if problem := folder_problem():
        print(f"neocode: {problem}", file=sys.stderr)
        return 2
    if args.command == "replay":
        return _run_replay(args)
    if args.command == "acp":
        pause_collections()  # until the agent is built (deferred.py)
        from neocode_tui.cli.acp import run_acp

        return run_acp(args)
    if args.command in SUBCOMMANDS:
        module, function = SUBCOMMANDS[args.command]
        run: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module), function)
        return run(args)
    if args.worktree is not None:
        from neocode_tui.cli.worktree_run import in_worktree

        return in_worktree(args.worktree, lambda: _front_end(args, initial_prompt),
                           lambda: args.prompt is None and sys.stdin is not None and sys.stdin.isatty())
    return _front_end(args, initial_prompt)


def _front_end(args: argparse.Namespace, initial_prompt: str | None) -> int:
    """The app, or a headless run when asked for or when there is no terminal."""
    # Served by textual-serve, the app draws through Textual's web driver: a browser tab is
    # its screen, though stdin is a pipe.
    has_screen = (sys.stdin is not None and sys.stdin.isatty()) or "TEXTUAL_DRIVER" in os.environ
    if initial_prompt is not None and args.prompt is None and not has_screen:
        args.prompt = initial_prompt  # no terminal to open the app in: run it headless
    if args.prompt is not None or not has_screen:
        pause_collections()  # until the run's session is open (deferred.py)
        from neocode_tui.cli.headless import run_headless

        if args.input_format == "stream-json":  # a conversation, message after message
            from neocode_tui.cli.two_way import run_two_way

            return run_headless(args, run_two_way)
        return run_headless(args)
    from neocode_tui.cli.reader import reader_wanted

    if reader_wanted(args):
        pause_collections()
        from neocode_tui.cli.headless import run_headless
        from neocode_tui.cli.reader import run_reader

        return run_headless(args, run_reader)
    if given := automation_flags_given(args):
        print(f"neocode: {', '.join(given)} work with -p (a headless run) only", file=sys.stderr)
        return 2
    from neocode_tui.cli.app import run_app

    return run_app(args)


def _run_replay(args: argparse.Namespace) -> int:
    if args.tui:
        from neocode_tui.cli.replay_tui import run_replay_tui

        return run_replay_tui(args)
    from neocode_tui.cli.replay import run_replay

    return run_replay(args)


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


def _skip_httpx_command_line() -> None:
    """httpx imports its own command-line client (click, rich, pygments) whenever click is
    installed, as it is beside uvicorn. NeoCode never runs it, and it is a third of what
    importing httpx costs: an empty module in its place makes httpx define a stub instead."""
    sys.modules.setdefault("httpx._main", types.ModuleType("httpx._main"))


def _skip_pydantic_plugins() -> None:
    """pydantic looks for plugins (entry points of every installed package, importing
    ``importlib.metadata`` and reading each one's metadata) when it builds its first model;
    NeoCode uses none, and the search costs a start as much as pydantic's own import. A
    stand-in loader that finds none is what ``PYDANTIC_DISABLE_PLUGINS=__all__`` does,
    without the import, and without setting a variable every child process would inherit."""
    loader = types.ModuleType("pydantic.plugin._loader")
    loader.get_plugins = tuple  # type: ignore[attr-defined]  # no plugins: an empty tuple
    sys.modules.setdefault("pydantic.plugin._loader", loader)
