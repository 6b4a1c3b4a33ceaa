"""Flags shared by the front ends, and the settings they lead to."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neocode_tui.vocabulary import (
    APPROVAL_MODES,
    EFFORTS,
    MODE_DESCRIPTIONS,
    PROVIDER_NAMES,
    SANDBOX_MODES,
)

if TYPE_CHECKING:
    from neocode_tui.agent.permissions import RunOptions
    from neocode_tui.settings import LoadedSettings

SETTING_FLAGS = (
    "provider", "base_url", "model", "approval", "theme", "max_turns", "sandbox",
    "sandbox_network", "screen_reader", "openai_compat", "effort", "small_model", "max_budget_usd", "fallback_models",
)
"""Flags that are settings: given on the command line, they win over every other source."""


def add_setting_flags(parser: argparse.ArgumentParser, *, again: bool = False) -> None:
    """``again``: for a subcommand, so the flags work after it too (``neocode acp --model X``)
    and, when not given there, leave those given before it alone."""
    keep: dict[str, Any] = {"default": argparse.SUPPRESS} if again else {}
    parser.add_argument("--provider", choices=PROVIDER_NAMES, **keep)
    parser.add_argument("--base-url", help="API base URL (OpenAI-style URLs include /v1)", **keep)
    parser.add_argument("--model", help="model name sent to the provider", **keep)
    parser.add_argument(
        "--profile", metavar="NAME",
        help="a [profiles.NAME] table of your config.toml: its provider, URL, model...", **keep,
    )
    parser.add_argument(
        "--approval",
        choices=APPROVAL_MODES,
        help="what needs your yes: " + "; ".join(
            f"{mode}: {description}" for mode, description in MODE_DESCRIPTIONS.items()
        ),
        **keep,
    )
    parser.add_argument(
        "--openai-compat", metavar="K=V,...",
        help="what an OpenAI-compatible server needs done differently, e.g. "
        "tool_choice=required,stream_options=false (see docs/models.md's compatibility table)",
        **keep,
    )
    parser.add_argument("--max-turns", type=int, help="stop the agent after this many turns", **keep)
    parser.add_argument("--theme", help="theme name (see themes/)", **keep)
    parser.add_argument(
        "--sandbox", choices=SANDBOX_MODES,
        help="where commands may write: workspace-write (the default where bubblewrap "
        "works), read-only, off",
        **keep,
    )
    parser.add_argument(
        "--sandbox-network", action="store_const", const=True,
        help="let sandboxed commands reach the network", **keep,
    )
    parser.add_argument(
        "--screen-reader", action="store_const", const=True,
        help="plain lines for a screen reader: each message and tool call said once, no "
        "box drawing or redraws (docs/accessibility.md)", **keep,
    )
    parser.add_argument(
        "--effort", choices=EFFORTS,
        help="how hard a reasoning model thinks: OpenAI's reasoning_effort, Anthropic's "
        "thinking budget (only for models that take them)", **keep,
    )
    parser.add_argument(
        "--small-model", metavar="MODEL",
        help="a cheaper model of the same provider for side work: titles, summaries", **keep,
    )
    parser.add_argument(
        "--fallback-model", dest="fallback_models", action="append", metavar="MODEL",
        help="a model of the same provider to go on with when the model is overloaded or "
        "refused (repeat or separate by commas for more, in order)", **keep,
    )
    parser.add_argument(
        "--max-budget-usd", type=float, metavar="X",
        help="with -p: stop before a request would take the session past X dollars "
        "(the app warns at 80%% and asks)", **keep,
    )
    parser.add_argument(
        "--trust", action="store_true",
        help="trust this folder for this run: its .env may set the provider, URL and approval, "
        "its .mcp.json servers start and its hooks run",
        **keep,
    )


def load_from_args(
    args: argparse.Namespace, workspace: Path, *, trusted: bool | None = None,
    profile: str | None = None,
) -> LoadedSettings:
    """Settings for ``workspace`` with the flags on top; ``SettingsError`` lists problems.
    ``--trust`` (or ``trusted``) trusts the folder for this run. ``profile``: one picked in
    the app, after the flags, so its values win over theirs."""
    from neocode_tui.settings import load_settings  # pydantic: not for ``neocode --help``

    flags = {name: getattr(args, name, None) for name in SETTING_FLAGS}
    if getattr(args, "trust", False):
        trusted = True
    return load_settings(
        workspace, flags, trusted=trusted, profile=profile or getattr(args, "profile", None),
        profile_wins=profile is not None,
    )


AUTOMATION_FLAGS = ("allowed_tools", "disallowed_tools", "append_system_prompt", "add_dir", "json_schema", "goal",
                    "trajectory")
"""Claude Code's flags for scripted runs (``-p``)."""


def add_automation_flags(parser: argparse.ArgumentParser) -> None:
    """Flags of headless runs, by Claude Code's names; rules take the permission rule
    syntax, separated by commas or blanks, and the flags may be repeated."""
    parser.add_argument(
        "--allowed-tools", "--allowedTools", action="append", default=[], metavar="RULES",
        help='rules that run without asking, e.g. "bash(npm test:*) edit_file(src/**)"',
    )
    parser.add_argument(
        "--disallowed-tools", "--disallowedTools", action="append", default=[], metavar="RULES",
        help='rules that never run, e.g. "bash(git push:*) web_fetch"',
    )
    parser.add_argument(
        "--append-system-prompt", metavar="TEXT", default="",
        help="add TEXT at the end of the system prompt",
    )
    parser.add_argument(
        "--add-dir", action="append", default=[], metavar="DIR",
        help="another folder the tools may read and write, and sandboxed commands too",
    )
    parser.add_argument(
        "--json-schema", metavar="FILE",
        help="the final answer must be JSON matching this JSON Schema; with --output-format "
        "json it is printed as structured_output (exit code 3 if it still does not match)",
    )
    parser.add_argument(
        "--goal", metavar="CONDITION",
        help="keep working after the prompt, turn after turn, until a judge finds CONDITION holds "
        "(exit code 5 if a limit stops it first: goal_max_turns, goal_max_minutes, --max-budget-usd)",
    )
    parser.add_argument(
        "--trajectory", metavar="FILE",
        help="at the end of the run, write its session as an ATIF trajectory to FILE (never over one)",
    )


def run_options(args: argparse.Namespace) -> RunOptions:
    """The session's part of the automation flags (the rules are checked here: a bad one is
    bad usage)."""
    from neocode_tui.agent.permissions import Rule, RunOptions, split_rules

    allowed = split_rules(getattr(args, "allowed_tools", None) or [])
    disallowed = split_rules(getattr(args, "disallowed_tools", None) or [])
    for text in (*allowed, *disallowed):
        Rule.parse(text)
    from neocode_tui.agent import Workspace

    folders = getattr(args, "add_dir", None) or []
    check = Workspace(Path.cwd())
    for folder in folders:
        check.add(Path(folder))  # a bad folder is bad usage now, not a failure later
    return RunOptions(
        allowed_tools=allowed, disallowed_tools=disallowed,
        append_system_prompt=getattr(args, "append_system_prompt", "") or "",
        add_dirs=tuple(Path(folder) for folder in folders),
    )


def automation_flags_given(args: argparse.Namespace) -> list[str]:
    """The automation flags given (for a front end that does not take them)."""
    return [f"--{name.replace('_', '-')}" for name in AUTOMATION_FLAGS if getattr(args, name, None)]
