"""``neocode export`` and ``neocode import``: sessions to and from other programs' formats
(an ATIF trajectory for benchmark harnesses; Claude Code's and Codex's session files)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from neocode_tui.agent.commands import conversation_markdown
from neocode_tui.agent.interchange import ImportProblem, read_transcript, save_imported, trajectory
from neocode_tui.agent.store import find_session, load_session
from neocode_tui.cli.options import load_from_args
from neocode_tui.errors import SessionNotFound, SettingsError
from neocode_tui.known_secrets import known_secrets
from neocode_tui.terminal_text import for_stream


def run_export(args: argparse.Namespace) -> int:
    """The session as ATIF JSON (or Markdown) on stdout, or in a new file."""
    try:
        info = find_session(Path.cwd(), args.session or None)
        if args.format == "atif":
            text = json.dumps(trajectory(info), ensure_ascii=False, indent=2) + "\n"
        else:
            text = conversation_markdown(info.title or info.id, load_session(info).messages)
    except SessionNotFound as exc:
        print(f"neocode: {exc}", file=sys.stderr)
        return 1
    if not args.output:
        sys.stdout.write(text if args.format == "atif" else for_stream(text, sys.stdout))
        return 0
    if not _write_new(Path(args.output), text):
        return 1
    print(f"session {info.id} written to {args.output} ({args.format})", file=sys.stderr)
    return 0


def write_trajectory(session_id: str, path: Path) -> bool:
    """``-p --trajectory FILE``: the run's session as ATIF in a new file; a problem is said."""
    try:
        text = json.dumps(trajectory(find_session(Path.cwd(), session_id)), ensure_ascii=False, indent=2)
    except SessionNotFound as exc:
        print(f"neocode: no trajectory written: {exc}", file=sys.stderr)
        return False
    return _write_new(path, text + "\n")


def _write_new(path: Path, text: str) -> bool:
    try:
        with path.open("x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        print(f"neocode: {path} exists; it was left as it is", file=sys.stderr)
        return False
    except OSError as exc:
        print(f"neocode: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return False
    return True


def run_import(args: argparse.Namespace) -> int:
    """Another agent's session saved here; says the id to resume it by."""
    workspace = Path.cwd()
    try:
        settings = load_from_args(args, workspace).settings
        imported = read_transcript(Path(args.file), known_secrets(settings))
        session_id = save_imported(imported, workspace, settings.resolved_provider)
    except (ImportProblem, SettingsError) as exc:
        print(f"neocode: {exc}", file=sys.stderr)
        return 1
    calls = sum(len(message.tool_calls) for message in imported.messages)
    skipped = f"; {imported.skipped} line(s) it could not use were left out" if imported.skipped else ""
    print(f"imported {imported.source} session: {len(imported.messages)} messages, {calls} tool calls{skipped}")
    print(f"resume it with: neocode --resume {session_id}")
    return 0
