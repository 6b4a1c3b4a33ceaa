"""How the sandbox and approval combine, through the real session and loop against the
loopback model: sandboxed commands run in auto-edit, leaving the sandbox always asks, and
without bubblewrap every command asks and the session says so once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neocode_tui.agent.loop_events import ApprovalDecision, ApprovalRequested, Notice, ToolFinished
from neocode_tui.agent.permissions.approvals import needs_approval, refusal_without_approver
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.settings.load import load_settings
from neocode_tui.settings.model import Settings
from tests.support.calls import bash
from tests.support.dialects import API_KEY, Dialect
from tests.support.headless import neocode
from tests.support.recorder import Recorder


class Approver:
    """Answers every question with ``verdicts`` in turn (then "yes") and keeps them."""

    def __init__(self, *verdicts: str) -> None:
        self.verdicts = list(verdicts)
        self.asked: list[ApprovalRequested] = []

    async def __call__(self, request: ApprovalRequested) -> ApprovalDecision:
        self.asked.append(request)
        verdict = self.verdicts.pop(0) if self.verdicts else "yes"
        return ApprovalDecision(verdict=verdict)  # type: ignore[arg-type]


def session(dialect: Dialect, workspace: Path, approver: Approver, **settings) -> tuple[
    AgentSession, Recorder
]:
    recorder = Recorder()
    chosen = Settings(provider=dialect.name, openai_api_key=API_KEY, **settings)
    made = AgentSession(chosen, workspace, FrontEnd(listener=recorder, approver=approver), provider=dialect.provider(),
                        save=False)
    return made, recorder


async def test_auto_edit_runs_a_sandboxed_command_without_asking(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("", [bash("b1", "echo built > out.txt && echo ok")])
    dialect.reply("Built.")
    approver = Approver()
    agent, recorder = session(dialect, workspace, approver, approval="auto-edit")

    finished = await agent.prompt("build it")

    assert finished.final_text == "Built."
    assert approver.asked == []
    assert (workspace / "out.txt").read_text() == "built\n"
    assert dialect.tool_results(2) == {"b1": "ok"}
    assert recorder.of(Notice) == []  # the sandbox works: nothing to say
    await agent.aclose()


async def test_ask_mode_still_asks_for_a_sandboxed_command(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [bash("b1", "echo built > out.txt")])
    openai_only.reply("Built.")
    approver = Approver("no")
    agent, _ = session(openai_only, workspace, approver, approval="ask")

    await agent.prompt("build it")

    assert [request.command for request in approver.asked] == ["echo built > out.txt"]
    assert not (workspace / "out.txt").exists()
    await agent.aclose()


async def test_a_sandbox_failure_leads_to_one_approved_run_outside(
    openai_only: Dialect, workspace: Path, outside: Path
) -> None:
    write_outside = f'echo hi >> "{outside}/note.txt"'
    openai_only.reply("", [bash("in", write_outside)])
    openai_only.reply("", [bash("out", write_outside, unsandboxed=True)])
    openai_only.reply("", [bash("again", write_outside, unsandboxed=True)])
    openai_only.reply("Noted, twice.")
    approver = Approver("session", "yes")
    agent, _ = session(openai_only, workspace, approver, approval="auto-edit")

    await agent.prompt("note it in that folder")

    inside = openai_only.tool_results(2)["in"]
    assert "Read-only file system" in inside
    assert "[this may have failed because of the sandbox: writing outside the workspace" in inside
    assert 'call bash again with "unsandboxed": true; the user will be asked]' in inside
    # Leaving the sandbox asks each time, even with bash allowed for the session.
    assert [request.call_id for request in approver.asked] == ["out", "again"]
    assert approver.asked[0].summary == f"{write_outside} [outside the sandbox]"
    assert (outside / "note.txt").read_text() == "hi\nhi\n"
    await agent.aclose()


def test_leaving_the_sandbox_asks_in_every_mode_short_of_full_auto(tmp_path: Path) -> None:
    for mode in ("ask", "auto-edit"):
        assert needs_approval("command", mode, root=tmp_path, confinement="escape",
                              allowed_for_session=True)
        assert needs_approval("command", mode, root=tmp_path)  # no sandbox: as before
    assert not needs_approval("command", "auto-edit", root=tmp_path, confinement="sandboxed")
    assert needs_approval("command", "ask", root=tmp_path, confinement="sandboxed")
    assert not needs_approval("command", "full-auto", root=tmp_path, confinement="escape")
    assert "--approval auto-edit or full-auto" in refusal_without_approver(
        "bash", confinement="sandboxed", kind="command")
    assert "--approval full-auto)" in refusal_without_approver(
        "bash", confinement="escape", kind="command")
    # A command outside any sandbox (an MCP server's tool) runs only in full-auto.
    assert "--approval full-auto)" in refusal_without_approver("mcp__git__git_commit", kind="command")
    assert "--approval auto-edit or full-auto" in refusal_without_approver("write_file", kind="edit")


async def test_headless_auto_edit_runs_sandboxed_and_refuses_leaving(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [bash("in", "echo built > out.txt"),
                           bash("out", "echo x > elsewhere.txt", unsandboxed=True)])
    openai_only.reply("Half done.")

    result = await neocode(openai_only, workspace, "-p", "build", "--approval", "auto-edit",
                           "--output-format", "json")

    output = json.loads(result.out)
    assert output["sandbox"] == {"mode": "workspace-write", "network": False, "unavailable": None}
    inside, outside = output["tool_calls"]
    assert not inside["is_error"], inside
    assert (workspace / "out.txt").read_text() == "built\n"
    assert outside["result"].startswith("not run: bash needs approval")
    assert outside["result"].endswith("(rerun with --approval full-auto)")
    assert not (workspace / "elsewhere.txt").exists()


async def test_sandbox_flags_reach_the_run(openai_only: Dialect, workspace: Path) -> None:
    openai_only.reply("Nothing to run.")
    result = await neocode(openai_only, workspace, "-p", "hi", "--sandbox", "read-only",
                           "--sandbox-network", "--output-format", "json")
    assert json.loads(result.out)["sandbox"] == {
        "mode": "read-only", "network": True, "unavailable": None,
    }


async def test_bad_sandbox_flag_is_a_clear_message(openai_only: Dialect, workspace: Path) -> None:
    result = await neocode(openai_only, workspace, "-p", "hi", "--sandbox", "loose")
    assert result.code == 2 and "Traceback" not in result.err
    assert "--sandbox: invalid choice: 'loose'" in result.err


async def test_without_a_working_sandbox_every_command_asks_and_the_session_says_so(
    openai_only: Dialect, workspace: Path, no_user_namespaces: None
) -> None:
    openai_only.reply("", [bash("b1", "echo built > out.txt")])
    openai_only.reply("Built.")
    openai_only.reply("Still here.")
    approver = Approver("yes")
    agent, recorder = session(openai_only, workspace, approver, approval="auto-edit")

    await agent.prompt("build it")
    await agent.prompt("anything else?")

    [notice] = recorder.of(Notice)  # once, not per prompt
    assert notice.level == "warning"
    assert notice.message.startswith("no sandbox: bubblewrap cannot make a sandbox here "
                                     "(bwrap: No permissions to creating new namespace")
    assert "every command asks for approval" in notice.message
    assert [request.call_id for request in approver.asked] == ["b1"]
    assert approver.asked[0].summary == "echo built > out.txt"
    [finished] = recorder.of(ToolFinished)
    assert finished.result == "(no output)" and (workspace / "out.txt").exists()
    assert agent.sandbox.label == "no sandbox"
    await agent.aclose()


def test_an_untrusted_env_file_may_tighten_the_sandbox_but_not_loosen_it(
    workspace: Path,
) -> None:
    (workspace / ".env").write_text("NEOCODE_SANDBOX=read-only\nNEOCODE_SANDBOX_NETWORK=0\n")
    loaded = load_settings(workspace, trusted=False)
    assert (loaded.settings.sandbox, loaded.settings.sandbox_network) == ("read-only", False)
    assert loaded.ignored == []

    (workspace / ".env").write_text("NEOCODE_SANDBOX=off\nNEOCODE_SANDBOX_NETWORK=true\n")
    loaded = load_settings(workspace, trusted=False)
    assert (loaded.settings.sandbox, loaded.settings.sandbox_network) == (None, False)
    assert loaded.ignored_names == ["NEOCODE_SANDBOX", "NEOCODE_SANDBOX_NETWORK"]

    trusted = load_settings(workspace, trusted=True).settings
    assert (trusted.sandbox, trusted.sandbox_network) == ("off", True)


def test_the_user_environment_wins_over_a_tightening_env_file(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / ".env").write_text("NEOCODE_SANDBOX=read-only\n")
    monkeypatch.setenv("NEOCODE_SANDBOX", "off")
    assert load_settings(workspace, trusted=False).settings.sandbox == "off"


async def test_headless_without_a_sandbox_says_so_and_refuses_commands_short_of_full_auto(
    openai_only: Dialect, workspace: Path, no_user_namespaces: None
) -> None:
    openai_only.reply("", [bash("b1", "echo built > out.txt")])
    openai_only.reply("Could not build.")

    result = await neocode(openai_only, workspace, "-p", "build", "--approval", "auto-edit")

    assert result.code == 0 and result.out == "Could not build.\n"
    assert result.err.count("no sandbox: bubblewrap cannot make a sandbox here") == 1
    assert "(rerun with --approval full-auto)" in openai_only.tool_results(2)["b1"]
    assert not (workspace / "out.txt").exists()
