"""Every ``neocode`` command the README and the guide show in a shell block works as written.

Each is parsed by ``neocode``'s own parser; each that needs no terminal is run for real, the
whole line in bash (pipes and comments included), in a scratch folder that holds the
checkout's ``tests/`` (the recorded streams the replays name). A headless run talks to a model
server on 127.0.0.1, so what it prints is the server's answer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from neocode_tui import __version__
from neocode_tui.cli.parser import build_parser, split_initial_prompt
from neocode_tui.tui.scenarios import SCENARIOS
from tests.support.docs_pages import PAGES, ROOT, command_id, neocode_commands, shell_blocks, simple_commands
from tests.support.model_server import ModelServer, Response
from tests.support.sse import openai_turn
from tests.support.waits import PATIENCE

COMMANDS = neocode_commands()
ANSWER = "The docs' command reached the model."


def parsed(words: list[str]) -> argparse.Namespace | None:
    """``words`` as ``neocode`` reads them (a bare prompt first taken out, as ``main`` does);
    None for ``--version``, which prints and exits."""
    parser = build_parser()
    try:
        return parser.parse_args(split_initial_prompt(words, parser)[0])
    except SystemExit as exc:
        assert exc.code == 0 and words == ["--version"], f"neocode refuses: neocode {' '.join(words)}"
        return None


def runs_without_a_terminal(words: list[str]) -> bool:
    args = parsed(words)
    if args is None:
        return True
    if args.command == "replay":
        return not args.tui and Path(args.file).parts[0] == "tests"
    if args.command == "demo":
        return args.record is not None
    return args.command == "config" or (args.command is None and args.prompt is not None)


def runnable_lines() -> list[tuple[str, str, list[str]]]:
    """(page, the whole shell line, its neocode command's words) for each line to run."""
    lines = []
    for page in PAGES:
        for block in shell_blocks(page.read_text(encoding="utf-8")):
            for line in block.splitlines():
                for words in simple_commands(line):
                    if Path(words[0]).name == "neocode" and runs_without_a_terminal(words[1:]):
                        lines.append((page.name, line, words[1:]))
    return lines


RUNNABLE = runnable_lines()


def test_the_docs_show_commands_of_each_kind() -> None:
    """The extraction finds what the pages hold: a headless run, a replay, a recording."""
    shown = {command_id(page, words) for page, words in COMMANDS}
    assert "headless.md: neocode -p 'explain calc.py'" in shown
    assert "development.md: neocode demo parallel --record parallel.cast" in shown
    assert len(RUNNABLE) >= 8


@pytest.mark.parametrize(("page", "words"), COMMANDS, ids=[command_id(*c) for c in COMMANDS])
def test_every_command_the_docs_show_is_one_neocode_takes(page: str, words: list[str]) -> None:
    args = parsed(words)
    if args is not None and args.command == "demo" and args.script is not None:
        assert args.script in SCENARIOS, f"{page} shows a demo script neocode does not have: {args.script}"


@pytest.mark.parametrize(("page", "line", "words"), RUNNABLE, ids=[command_id(p, w) for p, _, w in RUNNABLE])
async def test_the_commands_that_need_no_terminal_run_as_written(
    page: str, line: str, words: list[str], model_server: ModelServer, tmp_path: Path
) -> None:
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    model_server.enqueue(Response(body=openai_turn(ANSWER)))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "NEOCODE_PROVIDER": "openai", "NEOCODE_BASE_URL": f"{model_server.url}/v1",
           "OPENAI_API_KEY": "sk-docs-test", "NEOCODE_MAX_RETRIES": "0"}
    process = await asyncio.create_subprocess_exec(
        "bash", "-c", line, cwd=tmp_path, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = (part.decode() for part in await asyncio.wait_for(process.communicate(), PATIENCE))
    assert process.returncode == 0, f"{page}: {line}\n{err}"
    assert "Traceback" not in err
    what_it_gives(parsed(words), out, tmp_path)


def what_it_gives(args: argparse.Namespace | None, out: str, folder: Path) -> None:
    """What the user gets from the command: the answer, the recording, the turn as JSON."""
    if args is None:
        assert out == f"neocode {__version__}\n"
    elif args.command is None and args.output_format == "json":
        assert json.loads(out)["result"] == ANSWER
    elif args.command is None and args.output_format == "stream-json":
        last = json.loads(out.splitlines()[-1])
        assert (last["type"], last["final_text"]) == ("run_finished", ANSWER)
    elif args.command is None:
        assert out == f"{ANSWER}\n"
    elif args.command == "demo":
        assert out == f"wrote {args.record}\n" and (folder / args.record).stat().st_size > 0
    elif args.command == "replay":
        events = [json.loads(line) for line in out.splitlines()]
        assert events and (args.events or events[0]["text"])
    else:
        assert out.startswith(f"Settings for a run in {folder}")
