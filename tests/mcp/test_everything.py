"""The reference MCP servers from npm (server-everything, server-filesystem), run the way a
user configures them: prompts as slash commands, resources as mentions and tools,
questions from the server, roots, tasks, and a server that fails, through ``neocode -p``
and through the app."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply
from neocode_tui.settings.model import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE, Driver, Release, StepProvider, Type
from neocode_tui.tui.screens.elicitation import ElicitationScreen
from tests.support.dialects import Dialect
from tests.support.headless import neocode
from tests.support.mcp_config import user_config
from tests.support.waits import screen_shows, started, wait_until

NODE_BIN = Path(__file__).resolve().parents[1] / "node" / "node_modules" / ".bin"
EVERYTHING = {"command": str(NODE_BIN / "mcp-server-everything"), "args": ["stdio"]}
FILESYSTEM = {"command": str(NODE_BIN / "mcp-server-filesystem")}
GUIDE = "demo://resource/static/document/architecture.md"


def sent_text(dialect: Dialect, number: int) -> str:
    return json.dumps(dialect.request(number)["messages"])


async def test_a_servers_prompt_runs_as_a_slash_command_in_a_headless_run(
    openai_only: Dialect, workspace: Path
) -> None:
    user_config({"everything": EVERYTHING})
    openai_only.reply("Sunny.")
    result = await neocode(openai_only, workspace, "-p", "/mcp__everything__args-prompt Paris France")
    assert (result.code, result.out) == (0, "Sunny.\n"), result.err
    assert "What's weather in Paris, France?" in sent_text(openai_only, 1)

    missing = await neocode(openai_only, workspace, "-p", "/mcp__everything__args-prompt")
    assert missing.code != 0
    assert "/mcp__everything__args-prompt needs city" in missing.err


async def test_resources_come_as_mentions_and_through_the_two_tools(
    openai_only: Dialect, workspace: Path
) -> None:
    user_config({"everything": EVERYTHING})
    openai_only.reply("", [("l1", "list_mcp_resources", "{}")])
    openai_only.reply("", [("r1", "read_mcp_resource", json.dumps({"server": "everything", "uri": GUIDE}))])
    openai_only.reply("Read.")
    result = await neocode(openai_only, workspace, "-p", f"summarise @everything:{GUIDE} please",
                           "--approval", "full-auto")
    assert result.code == 0, result.err
    first = sent_text(openai_only, 1)
    assert f'<mcp-resource server=\\"everything\\" uri=\\"{GUIDE}\\">' in first
    offered = [tool["function"]["name"] for tool in openai_only.request(1)["tools"]]
    assert {"list_mcp_resources", "read_mcp_resource"} <= set(offered)
    assert "mcp__everything__simulate-research-query" not in offered  # it runs only as a task
    results = openai_only.tool_results(3)
    assert f"everything: {GUIDE}" in results["l1"]
    assert "Architecture" in results["r1"]


async def test_a_question_from_a_server_is_declined_with_the_reason_in_a_headless_run(
    openai_only: Dialect, workspace: Path
) -> None:
    user_config({"everything": EVERYTHING})
    openai_only.reply("", [("e1", "mcp__everything__trigger-elicitation-request", "{}")])
    openai_only.reply("It was declined.")
    result = await neocode(openai_only, workspace, "-p", "ask me", "--approval", "full-auto")
    assert result.code == 0, result.err
    assert "the MCP server everything asked 'Please provide inputs for the following fields:'; " \
           "declined: no one is here to answer" in result.err
    assert "User declined to provide the requested information" in openai_only.tool_results(2)["e1"]


async def test_a_server_that_fails_at_start_is_named_with_its_stderr_in_a_headless_run(
    openai_only: Dialect, workspace: Path
) -> None:
    user_config({"broken": {"command": "sh", "args": ["-c", "echo 'cannot open the database' >&2; exit 3"]}})
    openai_only.reply("Fine.")
    result = await neocode(openai_only, workspace, "-p", "hi")
    assert result.code == 0
    assert "neocode: warning: the MCP server broken failed:" in result.err
    assert "cannot open the database" in result.err


async def test_the_filesystem_server_is_given_the_workspace_as_its_root(
    openai_only: Dialect, workspace: Path
) -> None:
    user_config({"files": FILESYSTEM})  # no folder on its command line: it asks for roots
    openai_only.reply("", [("a1", "mcp__files__list_allowed_directories", "{}")])
    openai_only.reply("Done.")
    result = await neocode(openai_only, workspace, "-p", "where may you look?", "--approval", "full-auto")
    assert result.code == 0, result.err
    assert str(workspace) in openai_only.tool_results(2)["a1"]


async def test_the_app_completes_a_servers_prompts(workspace: Path) -> None:
    user_config({"everything": EVERYTHING})
    app = NeoCodeApp(Settings(provider="scripted"), None, workspace, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await wait_until(lambda: bool(app.session.mcp.prompts()), pause=pilot.pause, what="the server's prompts")
        await Driver(pilot).play([Type("/mcp__everything__a")])
        await screen_shows(app, pilot, "/mcp__everything__args-prompt")


async def test_the_app_asks_a_servers_question_in_a_dialog(workspace: Path) -> None:
    user_config({"everything": EVERYTHING})
    calls = iter([[("mcp__everything__trigger-elicitation-request", "{}")], []])
    provider = StepProvider(ScriptedProvider(lambda request: scripted_reply("", next(calls, []))))
    app = NeoCodeApp(Settings(provider="scripted", approval="full-auto"), provider, workspace,
                     remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await wait_until(lambda: bool(app.session.mcp.prompts()), pause=pilot.pause, what="the server")
        await Driver(pilot).play([Type("ask me"), Release()])
        await wait_until(lambda: isinstance(app.screen, ElicitationScreen), pause=pilot.pause,
                         what="the server's question")
        await screen_shows(app, pilot, "The MCP server everything asks",
                           "Please provide inputs for the following fields:")
        await pilot.press("A", "d", "a")
        await pilot.press("ctrl+s")
        await wait_until(lambda: len(provider.inner.requests) == 2, pause=pilot.pause, what="the answer")
    result = json.dumps([m.model_dump() for m in provider.inner.requests[1].messages])
    assert "User provided the requested information" in result and "Name: Ada" in result


async def test_the_app_s_at_picker_completes_a_servers_resources(workspace: Path) -> None:
    user_config({"everything": EVERYTHING})
    app = NeoCodeApp(Settings(provider="scripted"), None, workspace, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await wait_until(lambda: bool(app.session.mcp.resource_servers()), pause=pilot.pause,
                         what="the server's resources")
        await Driver(pilot).play([Type("summarise @everything:", send=False)])
        await wait_until(lambda: app.mention_picker.shown_query == "everything:", pause=pilot.pause,
                         what="the server's resources in the picker")
        assert f"everything:{GUIDE}" in [entry.path for entry in app.mention_picker.entries]
        await Driver(pilot).play([Type("architecture", send=False)])
        await wait_until(lambda: app.mention_picker.shown_query == "everything:architecture",
                         pause=pilot.pause, what="the narrowed list")
        await screen_shows(app, pilot, f"everything:{GUIDE}")
        await pilot.press("tab")
        assert app.prompt.text == f"summarise @everything:{GUIDE} "
        assert not app.mention_picker.is_open
