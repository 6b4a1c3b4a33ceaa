"""Stdio servers: real ones from PyPI, and scripts that die, hang or fork on purpose."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from neocode_tui.agent.mcp import McpManager, UnknownServer
from neocode_tui.agent.tools import ToolError
from neocode_tui.agent.workspace import Workspace
from neocode_tui.paths import data_dir
from neocode_tui.trust import trust
from tests.support.mcp_config import user_config
from tests.support.mcp_launch import TIME_SERVER, VENV_BIN, script_server
from tests.support.processes import process_alive, wait_dead
from tests.support.waits import PATIENCE, wait_for_file


def started(workspace: Path, managers: list[McpManager], **options: float) -> McpManager:
    manager = McpManager(workspace, **{"connect_timeout": PATIENCE, **options})
    managers.append(manager)
    manager.start()
    return manager


async def call(manager: McpManager, name: str, **arguments: object):
    tool = manager.find(name)
    assert tool is not None, f"{name} not among {[t.name for t in manager.tools()]}"
    return await tool.run(tool.args_model.model_validate(arguments), Workspace(manager.workspace))


async def test_the_time_server_s_tools_are_offered_and_answer(
    workspace: Path, managers: list[McpManager]
) -> None:
    user_config({"time": TIME_SERVER})
    manager = started(workspace, managers)
    await manager.wait_ready()

    [status] = manager.status()
    assert (status.name, status.state, status.error) == ("time", "connected", "")
    assert status.tools == ("get_current_time", "convert_time")
    tools = {tool.name: tool for tool in manager.tools()}
    assert list(tools) == ["mcp__time__get_current_time", "mcp__time__convert_time"]
    spec = tools["mcp__time__get_current_time"].spec()
    assert spec.parameters["required"] == ["timezone"]
    assert "from the MCP server 'time'" in spec.description
    assert tools["mcp__time__get_current_time"].kind == "read"  # the server marks it readOnlyHint

    output = await call(manager, "mcp__time__get_current_time", timezone="Asia/Tokyo")
    assert not output.is_error
    assert json.loads(output.text)["timezone"] == "Asia/Tokyo"

    failed = await call(manager, "mcp__time__get_current_time", timezone="Nowhere/Atlantis")
    assert failed.is_error and "Nowhere/Atlantis" in failed.text


async def test_git_server_marks_only_its_reads_as_reads(
    workspace: Path, managers: list[McpManager]
) -> None:
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "notes.txt").write_text("hello\n")
    git = {"command": str(VENV_BIN / "mcp-server-git"), "args": ["--repository", str(workspace)]}
    user_config({"git": git})
    manager = started(workspace, managers)
    await manager.wait_ready()

    kinds = {tool.remote_name: tool.kind for tool in manager.tools()}
    assert kinds["git_status"] == kinds["git_log"] == "read"
    assert kinds["git_commit"] == kinds["git_add"] == "command"
    output = await call(manager, "mcp__git__git_status", repo_path=str(workspace))
    assert "notes.txt" in output.text and not output.is_error


async def test_start_never_waits_and_a_silent_server_times_out(
    workspace: Path, managers: list[McpManager]
) -> None:
    user_config({"silent": {"command": "sleep", "args": ["60"]}})
    began = time.monotonic()
    manager = started(workspace, managers, connect_timeout=1.5)
    assert manager.status()[0].state == "connecting"  # start returned without waiting

    await manager.wait_ready()

    [status] = manager.status()
    assert (status.state, status.error) == ("failed", "no answer within 1.5 s")
    assert 1.4 < time.monotonic() - began < PATIENCE  # the server never answers: the time limit ends it
    assert manager.tools() == []


async def test_a_missing_command_fails_with_its_name(workspace: Path, managers: list[McpManager]) -> None:
    user_config({"ghost": {"command": "no-such-mcp-server-anywhere"}})
    manager = started(workspace, managers)
    await manager.wait_ready()

    [status] = manager.status()
    assert (status.state, status.error) == ("failed", "command not found: no-such-mcp-server-anywhere")


async def test_a_server_that_exits_at_once_shows_its_stderr(
    workspace: Path, managers: list[McpManager]
) -> None:
    user_config({"crash": {"command": "sh", "args": ["-c", "echo 'missing API token' >&2; exit 3"]}})
    manager = started(workspace, managers)
    await manager.wait_ready()

    [status] = manager.status()
    assert (status.state, status.error) == ("failed", "the server closed the connection\nmissing API token")


async def test_a_token_a_server_is_configured_with_is_scrubbed_from_its_stderr(
    workspace: Path, managers: list[McpManager]
) -> None:
    """/mcp shows a failed server's last stderr lines: not the token in its env or args."""
    script = 'echo "token $SERVICE_TOKEN rejected, and $1 too" >&2; exit 3'
    user_config({"crash": {"command": "sh", "args": ["-c", script, "--api-key", "arg-key-5Tq8Lw2Zp7"],
                           "env": {"SERVICE_TOKEN": "svc-token-9Xk4Rb7Mn2"}}})
    manager = started(workspace, managers)
    await manager.wait_ready()

    [status] = manager.status()
    assert status.error.endswith("\ntoken [redacted] rejected, and [redacted] too"), status.error


async def test_a_server_that_dies_is_shown_failed_its_tools_say_so_and_restart_brings_it_back(
    workspace: Path, managers: list[McpManager]
) -> None:
    user_config({"mortal": script_server("mortal")})
    manager = started(workspace, managers)
    await manager.wait_ready()
    assert (await call(manager, "mcp__mortal__ping")).text == "pong"

    with pytest.raises(ToolError, match="the MCP server 'mortal' failed: the server closed the connection"):
        await call(manager, "mcp__mortal__die")

    [status] = manager.status()
    assert (status.state, status.error) == ("failed", "the server closed the connection")
    assert manager.tools() == []  # no longer offered to the model
    with pytest.raises(ToolError) as refused:
        await call(manager, "mcp__mortal__ping")  # but a call to it gets the reason
    assert str(refused.value) == (
        "not run: the MCP server 'mortal' is failed: the server closed the connection "
        "(the user can restart it with /mcp restart mortal)"
    )

    status = await manager.restart("mortal")
    assert status.state == "connected"
    assert (await call(manager, "mcp__mortal__ping")).text == "pong"
    with pytest.raises(UnknownServer, match="no MCP server named 'other'"):
        await manager.restart("other")


async def test_stopping_ends_the_children_a_server_left_in_its_group(
    workspace: Path, managers: list[McpManager]
) -> None:
    pid_file = workspace / "child.pid"
    forking = f"sleep 300 & echo $! > {pid_file}; exec {VENV_BIN / 'mcp-server-time'}"
    user_config({"forking": {"command": "sh", "args": ["-c", forking]}})
    manager = started(workspace, managers)
    await manager.wait_ready()
    child = int(await wait_for_file(pid_file))
    assert process_alive(child)
    assert manager.status()[0].state == "connected"

    await manager.aclose()

    assert await wait_dead(child), "the server's child outlived the session"
    assert manager.status()[0].state == "stopped"


async def test_stopping_ends_the_children_a_server_sent_out_of_its_group(
    workspace: Path, managers: list[McpManager]
) -> None:
    pid_file = workspace / "child.pid"
    forking = f"setsid sleep 300 & echo $! > {pid_file}; exec {VENV_BIN / 'mcp-server-time'}"
    user_config({"forking": {"command": "sh", "args": ["-c", forking]}})
    manager = started(workspace, managers)
    await manager.wait_ready()
    child = int(await wait_for_file(pid_file))
    assert process_alive(child) and manager.status()[0].state == "connected"

    await manager.aclose()

    assert not process_alive(child), "the server's child outlived the session"
    assert manager.status()[0].state == "stopped"


async def test_an_untrusted_workspace_s_servers_are_not_started_and_a_trusted_one_s_are(
    workspace: Path, managers: list[McpManager]
) -> None:
    marker = workspace / "server-ran"
    command = f"touch {marker}; exec {VENV_BIN / 'mcp-server-time'}"
    (workspace / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"repo": {"command": "sh", "args": ["-c", command]}}})
    )
    manager = started(workspace, managers)
    await manager.wait_ready()
    await manager.aclose()

    assert not marker.exists()
    [status] = manager.status()
    assert (status.state, status.error) == ("not started", "folder not trusted")
    with pytest.raises(UnknownServer, match="not trusted"):
        await manager.restart("repo")

    trust(workspace)
    manager = started(workspace, managers)
    await manager.wait_ready()
    assert marker.exists() and manager.status()[0].state == "connected"


async def test_a_server_runs_in_the_workspace_with_its_env_and_without_the_user_s_keys(
    workspace: Path, managers: list[McpManager], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-user-secret-123456")
    user_config({"mortal": {**script_server("mortal"), "env": {"LEVEL": "2"}}})
    manager = started(workspace, managers)
    await manager.wait_ready()

    assert (await call(manager, "mcp__mortal__where")).text == f"{workspace} ['LEVEL']"


async def test_stray_output_from_a_server_is_logged_not_printed(
    workspace: Path, managers: list[McpManager], capfd: pytest.CaptureFixture[str]
) -> None:
    chatty = f"echo 'starting up...'; exec {VENV_BIN / 'mcp-server-time'}"
    user_config({"chatty": {"command": "sh", "args": ["-c", chatty]}})
    manager = started(workspace, managers)
    await manager.wait_ready()

    assert manager.status()[0].state == "connected"
    assert capfd.readouterr() == ("", "")
    log = data_dir() / "mcp-logs" / "sdk.log"
    assert "Failed to parse JSONRPC message from server" in log.read_text()
