"""A data or config folder that cannot be one, and closed standard streams, as a user's
shell sets them up: a clear message and exit code 2, never a traceback."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.dialects import API_KEY, Dialect
from tests.support.waits import PATIENCE

NEOCODE = str(Path(sys.executable).parent / "neocode")


def shell_env(**env: str) -> dict[str, str]:
    return {**os.environ, "NEOCODE": NEOCODE, "NEOCODE_PROVIDER": "openai",
            "NEOCODE_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": API_KEY, **env}


def run(shell: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``shell`` (``$NEOCODE`` is neocode) by bash, in ``tmp_path``, as a user types it."""
    return subprocess.run(["bash", "-c", shell], cwd=tmp_path, env=shell_env(**env),
                          capture_output=True, text=True, timeout=PATIENCE, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("command", ["-p hi", "sessions", "", "acp"])
def test_a_data_folder_that_is_a_file_is_named_and_exits_2(command: str, tmp_path: Path) -> None:
    (tmp_path / "data").write_text("not a folder\n")
    done = run(f'exec "$NEOCODE" {command}', tmp_path, NEOCODE_DATA_DIR=str(tmp_path / "data"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"neocode: the data folder {tmp_path / 'data'} (from NEOCODE_DATA_DIR) "
                           "cannot be used: it is a file\n")


def test_a_config_folder_behind_a_file_is_named_and_exits_2(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    done = run('exec "$NEOCODE" -p hi', tmp_path, NEOCODE_CONFIG_DIR=str(tmp_path / "file/config"))
    assert done.returncode == 2
    assert done.stderr == (f"neocode: the config folder {tmp_path / 'file/config'} (from "
                           f"NEOCODE_CONFIG_DIR) cannot be used: {tmp_path / 'file'}, on its way, "
                           "is a file\n")


@pytest.mark.parametrize(("shell", "message"), [
    ('exec "$NEOCODE" -p - 0<&-', "neocode: no prompt: stdin is closed (give -p PROMPT)\n"),
    ('exec "$NEOCODE" 0<&-', "neocode: no prompt: stdin is closed (give -p PROMPT)\n"),
    ('exec "$NEOCODE" acp 0<&-',
     "neocode acp: stdin is closed: an editor starts neocode acp with pipes on stdin and stdout\n"),
    ('exec "$NEOCODE" acp < notes.txt',
     "neocode acp: stdin is a file: an editor starts neocode acp with pipes on stdin and stdout\n"),
])
def test_closed_or_unusable_standard_input_is_said_and_exits_2(
    shell: str, message: str, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("{}\n")
    done = run(shell, tmp_path)
    assert (done.returncode, done.stderr) == (2, message)


async def test_a_checkpoint_that_cannot_be_saved_is_a_warning_and_the_run_goes_on(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"  # NEOCODE_DATA_DIR, as every test has it
    data.mkdir()
    (data / "checkpoints").write_text("in the way\n")
    openai_only.reply("", [("w1", "write_file", json.dumps({"path": "a.txt", "content": "a\n"}))])
    openai_only.reply("Written.")
    process = await asyncio.create_subprocess_exec(
        NEOCODE, "-p", "write a", "--approval", "full-auto", cwd=workspace,
        env=shell_env(NEOCODE_BASE_URL=openai_only.server.url + "/v1", NEOCODE_MAX_RETRIES="0"),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), PATIENCE)
    assert process.returncode == 0 and out.decode() == "Written.\n"
    assert "could not save a checkpoint" in err.decode() and "Traceback" not in err.decode()
    assert (workspace / "a.txt").read_text() == "a\n"
