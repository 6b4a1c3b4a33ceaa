"""``neocode -p`` on a terminal shows what the model, tools and hooks wrote escaped; into a
pipe or a file it writes it exactly. Real subprocesses, real pseudo-terminals."""

from __future__ import annotations

import asyncio
import json
import os
import tty
from pathlib import Path

import pytest

from neocode_tui.agent.store.session_store import SessionStore
from neocode_tui.chat import Message
from neocode_tui.paths import config_dir
from neocode_tui.terminal_text import visible
from tests.support.dialects import Dialect
from tests.support.headless import NEOCODE, headless_env, neocode
from tests.support.terminal import HOSTILE, PIECES, foreign_controls, read_terminals
from tests.support.waits import PATIENCE

COMMAND = f"echo hi # {PIECES[1][0]} {PIECES[3][0]}"
"""A command whose text itself holds a retitle and a clear."""
HOOK_SAYS = r"printf 'blocked: \033]0;pwned\007 \033]52;c;cHduZWQ=\007' >&2; exit 2"


async def on_terminals(
    dialect: Dialect, cwd: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """neocode with its stdout and its stderr each on a terminal of its own (raw mode, so
    the terminal passes on every byte as it was written)."""
    out_master, out_slave = os.openpty()
    err_master, err_slave = os.openpty()
    for slave in (out_slave, err_slave):
        tty.setraw(slave)
    process = await asyncio.create_subprocess_exec(
        NEOCODE, *args, cwd=cwd, env=env or headless_env(dialect), stdin=asyncio.subprocess.DEVNULL,
        stdout=out_slave, stderr=err_slave,
    )
    os.close(out_slave)
    os.close(err_slave)
    try:
        out, err = await asyncio.to_thread(read_terminals, [out_master, err_master])
    finally:
        os.close(out_master)
        os.close(err_master)
    code = await asyncio.wait_for(process.wait(), PATIENCE)
    return code, out.decode(), err.decode()


def script(dialect: Dialect) -> None:
    """An answer with every kind of control, a command and a write a hook blocks."""
    hooks = {"hooks": {"PreToolUse": [
        {"matcher": "write_file", "hooks": [{"type": "command", "command": HOOK_SAYS}]}
    ]}}
    (config_dir() / "hooks.json").parent.mkdir(parents=True, exist_ok=True)
    (config_dir() / "hooks.json").write_text(json.dumps(hooks))
    calls = [("c1", "bash", json.dumps({"command": COMMAND})),
             ("c2", "write_file", json.dumps({"path": "x.txt", "content": "x"}))]
    dialect.reply(f"Answer: {HOSTILE}", calls)
    dialect.reply("done")


async def test_on_a_terminal_the_answer_and_the_tool_lines_are_shown_escaped(
    openai_only: Dialect, workspace: Path
) -> None:
    script(openai_only)
    code, out, err = await on_terminals(openai_only, workspace, "-p", "go", "--approval", "full-auto")

    assert code == 0, err
    assert out.startswith(f"Answer: {visible(HOSTILE)}") and out.endswith("done\n")
    assert f"→ {visible(COMMAND)}" in err  # the command, as the model wrote it
    assert "blocked: ␛]0;pwned␇ ␛]52;c;cHduZWQ=␇" in err  # the hook's reason
    for written in (out, err):
        assert [raw for raw, _ in PIECES if raw in written] == []
        assert foreign_controls(written) == []


async def test_into_a_pipe_the_answer_and_the_tool_lines_are_exact(
    openai_only: Dialect, workspace: Path
) -> None:
    script(openai_only)
    result = await neocode(openai_only, workspace, "-p", "go", "--approval", "full-auto")

    assert result.code == 0, result.err
    assert result.out.startswith(f"Answer: {HOSTILE}")
    assert f"→ {COMMAND}" in result.err
    assert "blocked: \x1b]0;pwned\x07 \x1b]52;c;cHduZWQ=\x07" in result.err


@pytest.mark.parametrize("output_format", ["json", "stream-json"])
async def test_json_on_a_terminal_escapes_every_control_and_keeps_the_same_data(
    openai_only: Dialect, workspace: Path, output_format: str
) -> None:
    openai_only.reply(HOSTILE)
    code, out, err = await on_terminals(openai_only, workspace, "-p", "go", "--output-format", output_format)

    assert code == 0, err
    assert foreign_controls(out) == []
    lines = [json.loads(line) for line in out.splitlines()]
    if output_format == "json":
        assert lines[0]["result"] == HOSTILE
    else:
        deltas = [line["event"]["text"] for line in lines if line.get("type") == "stream"
                  and line["event"]["type"] == "text_delta"]
        assert "".join(deltas) == HOSTILE


async def test_neocode_sessions_shows_a_title_escaped_on_a_terminal(
    openai_only: Dialect, workspace: Path
) -> None:
    store = SessionStore.create(workspace, provider="openai", model="m")
    store.append_message(Message(role="user", content="fix \x1b]0;pwned\x07 it"))
    store.close()

    code, out, _ = await on_terminals(openai_only, workspace, "sessions")
    piped = await neocode(openai_only, workspace, "sessions")

    assert code == 0 and "fix ␛]0;pwned␇ it" in out and foreign_controls(out) == []
    assert "fix \x1b]0;pwned\x07 it" in piped.out


async def test_neocode_config_shows_a_model_the_folder_set_escaped_on_a_terminal(
    openai_only: Dialect, workspace: Path
) -> None:
    (workspace / ".env").write_text("NEOCODE_MODEL=gpt\x1b]0;pwned\x07\n")  # untrusted: the model may stay

    env = headless_env(openai_only)
    del env["NEOCODE_MODEL"]
    code, out, err = await on_terminals(openai_only, workspace, "config", env=env)

    assert code == 0, err
    assert "gpt␛]0;pwned␇" in out and foreign_controls(out) == []
