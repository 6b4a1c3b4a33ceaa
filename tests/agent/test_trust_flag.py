"""``--trust`` trusts the folder for one run of ``neocode -p`` and ``neocode acp``: its
``.mcp.json`` servers start and its hooks run, as in a folder the user trusted in the app;
nothing is remembered. Real subprocesses, a real stdio MCP server, a real hook."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from acp import text_block

from neocode_tui.trust import trust_file
from tests.support.acp_editor import agent_env, editor
from tests.support.dialects import Dialect
from tests.support.headless import neocode
from tests.support.mcp_config import write_config
from tests.support.mcp_launch import script_server


def untrusted_folder(workspace: Path) -> Path:
    """A folder whose files want a server started and a hook run; the hook leaves a marker."""
    write_config(workspace / ".mcp.json", {"mortal": script_server("mortal")})
    hooks = {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo ran > hook-ran"}]}]}
    (workspace / ".neocode").mkdir()
    (workspace / ".neocode" / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    return workspace / "hook-ran"


def offered(dialect: Dialect, number: int) -> list[str]:
    return [tool["function"]["name"] for tool in dialect.request(number)["tools"]]


async def test_p_with_trust_starts_the_folder_s_servers_and_runs_its_hooks(
    openai_only: Dialect, workspace: Path
) -> None:
    marker = untrusted_folder(workspace)
    openai_only.reply("Not trusted, so no tools of its own.")
    without = await neocode(openai_only, workspace, "-p", "ping it")
    assert without.code == 0, without.err
    assert "MCP servers in .mcp.json not started, this folder is not trusted: mortal" in without.err
    assert "hooks in .neocode/hooks.json not run" in without.err
    assert "mcp__mortal__ping" not in offered(openai_only, 1) and not marker.exists()

    openai_only.reply("", [("p1", "mcp__mortal__ping", "{}")])
    openai_only.reply("It answered.")
    trusted = await neocode(openai_only, workspace, "--trust", "-p", "ping it")

    assert (trusted.code, trusted.out) == (0, "It answered.\n"), trusted.err
    assert "not trusted" not in trusted.err
    assert "mcp__mortal__ping" in offered(openai_only, 2)
    assert openai_only.tool_results(3) == {"p1": "pong"}
    assert marker.read_text() == "ran\n"
    assert not trust_file().exists()  # for that run only


async def test_acp_with_trust_starts_the_folder_s_servers_and_runs_its_hooks(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    marker = untrusted_folder(workspace)
    openai_only.reply("", [("p1", "mcp__mortal__ping", "{}")])
    openai_only.reply("It answered.")

    async with editor(agent_env(openai_only.server.url, tmp_path), workspace, None, "--trust") as ed:
        session = await ed.conn.new_session(cwd=str(workspace))
        reply = await asyncio.wait_for(
            ed.conn.prompt(session_id=session.session_id, prompt=[text_block("ping it")]), 60
        )

    assert reply.stop_reason == "end_turn", ed.stderr.read_text()
    assert "mcp__mortal__ping" in offered(openai_only, 1)
    assert openai_only.tool_results(2) == {"p1": "pong"}
    assert marker.read_text() == "ran\n"
    assert not (tmp_path / "config" / "trusted-folders.json").exists()
