"""Folder trust covers the gated files (.env, .mcp.json, .neocode/hooks.json) as they were
when the user trusted the folder: one new or changed since grants nothing until the user
trusts the folder again, and every front end says so."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.agent.extensions.hooks import load_hooks
from neocode_tui.agent.mcp import McpManager
from neocode_tui.cli import build_parser
from neocode_tui.cli.app import load, workspace_programs
from neocode_tui.settings.load import load_settings
from neocode_tui.trust import trust, trust_file
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from tests.support.dialects import Dialect
from tests.support.headless import neocode
from tests.support.mcp_config import write_config
from tests.support.mcp_launch import TIME_SERVER
from tests.support.reading import screen_text
from tests.support.waits import wait_until

CHANGED = "is new or changed since you trusted this folder"


def add_hook(workspace: Path, command: str) -> None:
    hook = {"hooks": [{"type": "command", "command": command}]}
    (workspace / ".neocode").mkdir(exist_ok=True)
    (workspace / ".neocode" / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [hook]}}))


def test_files_new_or_changed_after_trust_grant_nothing_until_trusted_again(
    workspace: Path,
) -> None:
    (workspace / ".env").write_text("NEOCODE_APPROVAL=auto-edit\n")
    trust(workspace)
    assert load_settings(workspace).settings.approval == "auto-edit"

    # What a build, a script or a command could leave behind once the folder is trusted:
    write_config(workspace / ".mcp.json", {"pwn": {"command": "sh"}})
    add_hook(workspace, "touch pwned")
    (workspace / ".env").write_text("NEOCODE_APPROVAL=full-auto\n")

    loaded = load_settings(workspace)
    assert loaded.settings.approval is None
    assert loaded.ignored == [f"NEOCODE_APPROVAL in {workspace / '.env'} was ignored: .env {CHANGED} "
                              "(trust it when neocode asks, or pass --trust)"]
    manager = McpManager(workspace)
    assert f"MCP servers in .mcp.json not started, .mcp.json {CHANGED}: pwn" in manager.notices()
    assert [(s.name, s.state, s.error) for s in manager.status()] == [
        ("pwn", "not started", f".mcp.json {CHANGED}")]
    hooks = load_hooks(workspace)
    assert hooks.hooks == [] and [h.command.command for h in hooks.held[".neocode/hooks.json"][0]] == ["touch pwned"]
    assert hooks.notices() == [f"hooks in .neocode/hooks.json not run, .neocode/hooks.json {CHANGED}: Stop"]
    assert workspace_programs(workspace) == [
        ".mcp.json servers (new or changed since you trusted this folder): pwn",
        ".neocode/hooks.json hooks (new or changed since you trusted this folder): Stop",
    ]

    trust(workspace)  # the user said yes again, to the files as they are now

    assert load_settings(workspace).settings.approval == "full-auto"
    assert workspace_programs(workspace) == []
    assert McpManager(workspace).notices() == [] and load_hooks(workspace).held == {}


def test_a_trust_file_without_fingerprints_asks_once_more(workspace: Path) -> None:
    trust_file().parent.mkdir(parents=True, exist_ok=True)
    trust_file().write_text(json.dumps({"folders": [str(workspace.resolve())]}))
    write_config(workspace / ".mcp.json", {"pwn": {"command": "sh"}})

    assert workspace_programs(workspace) == [
        ".mcp.json servers (new or changed since you trusted this folder): pwn"]


def test_a_subfolder_of_a_trusted_folder_has_its_own_files_checked(workspace: Path) -> None:
    trust(workspace)
    sub = workspace / "packages" / "api"
    sub.mkdir(parents=True)
    write_config(sub / ".mcp.json", {"pwn": {"command": "sh"}})

    assert f".mcp.json {CHANGED}: pwn" in McpManager(sub).notices()[0]


async def test_a_server_added_after_trust_is_never_spawned_by_a_headless_run(
    openai_only: Dialect, workspace: Path
) -> None:
    trust(workspace)
    marker = workspace / "server-ran"
    server = {"command": "sh", "args": ["-c", f"touch {marker}; exec {TIME_SERVER['command']}"]}
    write_config(workspace / ".mcp.json", {"repo": server})
    openai_only.reply("Hello.")

    result = await neocode(openai_only, workspace, "-p", "hi")

    assert result.code == 0, result.err
    assert f"MCP servers in .mcp.json not started, .mcp.json {CHANGED}: repo" in result.err
    assert not marker.exists()

    trust(workspace)
    openai_only.reply("Hello again.")
    again = await neocode(openai_only, workspace, "-p", "hi")
    assert again.code == 0 and "not started" not in again.err
    assert marker.exists()  # trusted as it is now: it starts


async def test_the_app_asks_again_about_a_server_added_after_trust(workspace: Path) -> None:
    from neocode_tui.tui.screens.trust import TrustScreen

    trust(workspace)
    write_config(workspace / ".mcp.json", {"repo": {"command": "sh"}})
    loaded = load(build_parser().parse_args(["--provider", "scripted"]), workspace)
    app = NeoCodeApp(loaded.settings, loaded.provider, workspace=workspace,
                     untrusted=loaded.untrusted, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(lambda: isinstance(app.screen, TrustScreen) and "repo" in screen_text(app),
                         pause=pilot.pause, what="the question")
        shown = " ".join(screen_text(app).split())
        assert ".mcp.json servers (new or changed since you trusted this folder): repo" in shown
        await pilot.press("y")
        await wait_until(lambda: not isinstance(app.screen, TrustScreen), pause=pilot.pause)
    assert workspace_programs(workspace) == []  # remembered with the file as it is
