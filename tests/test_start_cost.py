"""What a scripted start imports before it does its job: ``neocode -p`` before its first
request, ``neocode acp`` before its answer to ``initialize``.

Scripts, editors and benchmark harnesses start NeoCode hundreds of times; most of what a
start costs is importing. Modules are counted, not timed, so the budget holds on a busy
machine too; ``bench/bench_headless_start.py`` measures the CPU itself.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.acp_editor import agent_env
from tests.support.dialects import Dialect
from tests.support.headless import headless_env
from tests.support.waits import PATIENCE

SCRIPT = str(Path(__file__).parent / "support" / "first_modules.py")
MARK = b"first_modules: the moment\n"
NEVER = ("textual", "rich", "click", "pygments", "markdown_it", "mcp", "yaml", "jsonschema",
         "bs4", "markdownify", "genai_prices", "acp", "neocode_tui.tui", "neocode_tui.cli.acp")
"""What neither start needs before its job: the app and its rendering, MCP's SDK (no
server is configured), the price list (read once there is usage to price), the ACP SDK."""
REQUEST_BUDGET = 535
"""Modules imported when ``-p`` sends its first request (a bare httpx client sending the
same request: about 330; what is more is pydantic, asyncio and the session; the language
servers' four small modules, though pygls and lsprotocol wait for the first server; the
reply's rate-limit headers, the session's headroom and a compaction's undo; a child's spent
tokens and the notes that replay what was shown live)."""
INITIALIZE_BUDGET = 315
"""Modules imported when ``acp`` has answered ``initialize`` (the flags checked, so pydantic
and the settings; importing the ACP SDK alone takes about 310, and far more CPU)."""


def top_levels(modules: list[str]) -> set[str]:
    """Each module and every package it is in: ``a.b.c`` gives ``a``, ``a.b``, ``a.b.c``."""
    return {".".join(name.split(".")[:end]) for name in modules for end in range(1, name.count(".") + 2)}


def forbidden(modules: list[str], allowed: tuple[str, ...] = ()) -> list[str]:
    names = top_levels(modules)
    return [name for name in NEVER if name in names and name not in allowed]


async def test_a_headless_start_imports_only_what_its_first_request_needs(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    openai_only.reply("Hi there.")
    out = tmp_path / "modules.txt"
    process = await asyncio.create_subprocess_exec(
        sys.executable, SCRIPT, "request", str(out), "-p", "hi", cwd=workspace,
        env=headless_env(openai_only), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    answer, err = await asyncio.wait_for(process.communicate(), PATIENCE)
    assert process.returncode == 0, err.decode()
    assert answer.decode() == "Hi there.\n"
    modules = out.read_text().split("\n")
    assert forbidden(modules) == []
    assert len(modules) <= REQUEST_BUDGET


async def test_acp_answers_initialize_before_it_imports_the_sdk_or_the_core(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    out = tmp_path / "modules.txt"
    process = await asyncio.create_subprocess_exec(
        sys.executable, SCRIPT, "acp", str(out), "acp", cwd=workspace,
        env={"PATH": "/usr/bin:/bin", **agent_env(openai_only.server.url, tmp_path)},
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT)
    assert process.stdin is not None and process.stdout is not None
    initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": 1, "clientInfo": {"name": "zed", "title": "Zed", "version": "0.200"},
        "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True}}}
    process.stdin.write(json.dumps(initialize).encode() + b"\n")
    first = await asyncio.wait_for(process.stdout.readline(), PATIENCE)
    assert json.loads(first)["result"]["agentInfo"]["name"] == "neocode"
    assert await asyncio.wait_for(process.stdout.readline(), PATIENCE) == MARK
    process.stdin.close()
    await asyncio.wait_for(process.wait(), PATIENCE)
    modules = out.read_text().split("\n")
    assert forbidden(modules, allowed=("neocode_tui.cli.acp",)) == []
    assert "neocode_tui.agent.session" not in modules
    assert len(modules) <= INITIALIZE_BUDGET


WHOLE_RUN = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("\\n".join(sorted(sys.modules))))
sys.argv = ["neocode", *sys.argv[1:]]
from neocode_tui.cli import main
raise SystemExit(main())
"""
"""``neocode ARGS`` as the entry point runs it, writing every module it imported as it exits."""


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_print_without_the_event_loop_or_pydantic(flag: str, tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-c", WHOLE_RUN, flag], cwd=tmp_path, capture_output=True,
                         text=True, timeout=PATIENCE, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("neocode " if flag == "--version" else "usage: neocode")
    modules = run.stderr.split("\n")
    assert forbidden(modules) == []
    assert [name for name in ("asyncio", "pydantic", "httpx") if name in modules] == []
