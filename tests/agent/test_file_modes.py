"""Every file NeoCode writes in its data and config folders is the user's alone (0600 in
0700 folders) whatever the umask: sessions, checkpoints and MCP logs hold every prompt,
answer and command output."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from pathlib import Path

import pytest

from neocode_tui.trust import trust
from neocode_tui.tui.user_config import UserConfig, save_user_config
from tests.support.dialects import API_KEY, Dialect
from tests.support.waits import PATIENCE

NEOCODE = str(Path(sys.executable).parent / "neocode")
TIME_SERVER = str(Path(sys.executable).parent / "mcp-server-time")


def modes(root: Path) -> dict[str, int]:
    """Every folder and file under ``root`` (and root) by its path from root: its mode bits."""
    found = {".": stat.S_IMODE(root.stat().st_mode)}
    for folder, folders, files in os.walk(root):
        for name in folders + files:
            path = Path(folder, name)
            found[str(path.relative_to(root))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def assert_private(root: Path) -> None:
    wide = {path: oct(mode) for path, mode in modes(root).items()
            if mode != (0o700 if (root / path).is_dir() else 0o600)}
    assert wide == {}


async def headless_run(dialect: Dialect, workspace: Path, umask: int) -> None:
    env = {name: value for name, value in os.environ.items() if not name.endswith("_API_KEY")}
    env.update(NEOCODE_PROVIDER="openai", NEOCODE_BASE_URL=dialect.server.url + "/v1",
               NEOCODE_MODEL="test-model", NEOCODE_MAX_RETRIES="0", OPENAI_API_KEY=API_KEY)
    process = await asyncio.create_subprocess_exec(
        NEOCODE, "-p", "write notes", "--approval", "full-auto", cwd=workspace, env=env,
        umask=umask, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), PATIENCE)
    assert process.returncode == 0, err.decode()
    assert out.decode().strip() == "Written."


@pytest.mark.parametrize("umask", [0o022, 0o000], ids=["umask 022", "umask 000"])
async def test_every_file_a_real_session_writes_is_private(
    umask: int, openai_only: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    data, config = isolated_dirs / "data", isolated_dirs / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "mcp.json").write_text(json.dumps({"mcpServers": {"time": {"command": TIME_SERVER}}}))
    note = json.dumps({"path": "app.py", "content": "print('notes')\n"})
    openai_only.reply("", [("w1", "write_file", note)])
    openai_only.reply("Written.")

    await headless_run(openai_only, workspace, umask)

    written = modes(data)
    assert any(path.startswith("sessions/") and path.endswith(".jsonl") for path in written)
    assert any(path.startswith("checkpoints/") and "/blobs/" in path for path in written)
    assert "mcp-logs/time.log" in written
    assert_private(data)
    assert (workspace / "app.py").read_text() == "print('notes')\n"  # the run did its work


async def test_data_folders_that_exist_wider_are_tightened(
    openai_only: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    data = isolated_dirs / "data"
    (data / "sessions").mkdir(parents=True)
    data.chmod(0o755)
    (data / "sessions").chmod(0o777)
    openai_only.reply("", [("w1", "write_file", json.dumps({"path": "a.txt", "content": "a"}))])
    openai_only.reply("Written.")

    await headless_run(openai_only, workspace, 0o022)

    assert_private(data)


def test_what_neocode_writes_in_the_config_folder_is_private(
    isolated_dirs: Path, workspace: Path
) -> None:
    config = isolated_dirs / "config"
    config.mkdir(mode=0o755)
    old = os.umask(0)
    try:
        trust(workspace)
        save_user_config(UserConfig(theme="nord"))
    finally:
        os.umask(old)
    assert modes(config) == {".": 0o700, "trusted-folders.json": 0o600, "settings.json": 0o600}
