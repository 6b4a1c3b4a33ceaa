"""Writes that would turn auto-edit into full-auto (the protected files: git hooks and
config, the agents' own config, .mcp.json, AGENTS.md, .env) ask in every mode short of
full-auto, through the real loop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neocode_tui.agent.loop import AgentLoop
from neocode_tui.agent.loop_events import ApprovalDecision, ApprovalRequested
from neocode_tui.agent.permissions.approvals import needs_approval
from neocode_tui.agent.permissions.session_rules import Permissions
from neocode_tui.paths import config_dir
from tests.support.dialects import Dialect

PROTECTED = [
    ".git/config", ".git/hooks/pre-commit", "vendor/lib/.git/hooks/post-checkout", ".GIT/config",
    ".neocode/settings.json", ".neocode/hooks.json", ".env", ".env.local", "api/.env", ".envrc",
    ".mcp.json", "sub/.mcp.json", "AGENTS.md", "agents.md", "CLAUDE.md", "sub/CLAUDE.md", ".claude/settings.json",
    ".claude/settings.local.json", ".claude/commands/x.md", ".claude/agents/a.md",
    ".claude/skills/s/SKILL.md", ".agents/skills/s/SKILL.md",
]


@pytest.mark.parametrize("relative", PROTECTED)
def test_protected_writes_ask_in_every_mode_but_full_auto(tmp_path: Path, relative: str) -> None:
    path = tmp_path / relative
    for mode in ("ask", "auto-edit"):
        assert needs_approval("edit", mode, [path], root=tmp_path)
        assert needs_approval("edit", mode, [path], root=tmp_path, allowed_for_session=True)
    assert not needs_approval("edit", "full-auto", [path], root=tmp_path)


def test_ordinary_writes_keep_the_mode_rules(tmp_path: Path) -> None:
    for relative in ("src/app.py", "environment.md", ".github/workflows/ci.yml", "git/config",
                     ".env/bin/activate", "docs/AGENTS.md.bak", "claude/commands/x.md"):
        path = tmp_path / relative
        assert needs_approval("edit", "ask", [path], root=tmp_path)
        assert not needs_approval("edit", "auto-edit", [path], root=tmp_path)
        assert not needs_approval("edit", "ask", [path], root=tmp_path, allowed_for_session=True)
    assert not needs_approval("read", "ask", root=tmp_path)
    assert needs_approval("command", "auto-edit", root=tmp_path)


def test_the_user_config_folder_asks_even_when_the_workspace_holds_it(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("NEOCODE_CONFIG_DIR", str(tmp_path / "home" / "cfg"))
    assert needs_approval("edit", "auto-edit", [config_dir() / "config.json"], root=tmp_path)


def write_call(call_id: str, path: str) -> tuple[str, str, str]:
    return (call_id, "write_file", json.dumps({"path": path, "content": "#!/bin/sh\nid\n"}))


async def test_auto_edit_asks_before_a_git_hook_even_through_a_symlink(
    openai_only: Dialect, workspace: Path
) -> None:
    (workspace / ".git" / "hooks").mkdir(parents=True)
    (workspace / "hooks").symlink_to(workspace / ".git" / "hooks", target_is_directory=True)
    openai_only.reply("", [
        write_call("h1", ".git/hooks/pre-commit"),
        write_call("h2", "hooks/post-checkout"),
        write_call("h3", ".env"),
        write_call("ok", "notes.txt"),
    ])
    openai_only.reply("Done.")
    asked: list[str] = []

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        asked.append(request.call_id)
        return ApprovalDecision(verdict="no" if request.call_id != "h3" else "session")

    loop = AgentLoop(openai_only.provider(), workspace, approval="auto-edit", approver=approver)
    await loop.run("set things up")

    assert asked == ["h1", "h2", "h3"]  # the plain file was written without asking
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert not (workspace / ".git" / "hooks" / "post-checkout").exists()
    assert (workspace / ".env").exists() and (workspace / "notes.txt").exists()
    results = openai_only.tool_results(2)
    assert results["h1"] == results["h2"] == "the user denied this call"


async def test_headless_auto_edit_refuses_protected_writes_and_says_why(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [write_call("g", ".git/config"), write_call("ok", "notes.txt")])
    openai_only.reply("Done.")
    loop = AgentLoop(openai_only.provider(), workspace, approval="auto-edit")
    await loop.run("configure git")

    results = openai_only.tool_results(2)
    assert results["g"].startswith("not run: write_file needs approval")
    assert "full-auto" in results["g"] and "auto-edit" not in results["g"]
    assert not (workspace / ".git").exists() and (workspace / "notes.txt").exists()


async def test_auto_edit_asks_before_each_agent_config_file_even_after_a_yes_for_the_session(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [
        write_call("m", ".mcp.json"), write_call("a", "AGENTS.md"),
        write_call("c", ".claude/commands/x.md"), write_call("ok", "notes.txt"),
    ])
    openai_only.reply("Done.")
    asked: list[str] = []

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        asked.append(request.call_id)
        return ApprovalDecision(verdict="session" if request.call_id == "m" else "no")

    loop = AgentLoop(openai_only.provider(), workspace, approval="auto-edit", approver=approver)
    await loop.run("set up the agents")

    assert asked == ["m", "a", "c"]
    assert (workspace / ".mcp.json").exists() and (workspace / "notes.txt").exists()
    assert not (workspace / "AGENTS.md").exists() and not (workspace / ".claude").exists()


def linked_workspace(workspace: Path) -> dict[str, str]:
    """Protected files that links lead to and from; what each write would name, by call."""
    (workspace / "shared" / "agents").mkdir(parents=True)
    (workspace / ".claude").symlink_to("shared", target_is_directory=True)
    (workspace / "docs").mkdir()
    (workspace / "docs" / "guide.md").write_text("The guide.\n")
    (workspace / "AGENTS.md").symlink_to("docs/guide.md")
    (workspace / "via").symlink_to(".claude", target_is_directory=True)
    (workspace / ".agents").mkdir()
    (workspace / "team" / "skills").mkdir(parents=True)
    (workspace / ".agents" / "skills").symlink_to("../team/skills", target_is_directory=True)
    (workspace / ".mcp.json").write_text('{"mcpServers": {}}\n')
    (workspace / "docs" / "servers.json").hardlink_to(workspace / ".mcp.json")
    (workspace / "docs" / "x.md").symlink_to("../.mcp.json")
    return {
        "dir": ".claude/agents/x.md",  # a protected folder that is a link elsewhere
        "file": "AGENTS.md",  # a protected file that is a link to an ordinary one
        "target": "docs/guide.md",  # what that link leads to, by its own name
        "step": "via/agents/y.md",  # a link to the protected link, on the way
        "inside": "team/skills/s/SKILL.md",  # where a link inside .agents/ leads
        "hard": "docs/servers.json",  # a hard link of .mcp.json
        "reverse": "docs/x.md",  # an ordinary name linked to .mcp.json
    }


def files_of(workspace: Path) -> dict[str, str]:
    return {path.relative_to(workspace).as_posix(): path.read_text()
            for path in sorted(workspace.rglob("*")) if path.is_file() and not path.is_symlink()}


async def test_auto_edit_asks_before_a_protected_file_reached_through_links(
    openai_only: Dialect, workspace: Path
) -> None:
    writes = linked_workspace(workspace)
    before = files_of(workspace)
    openai_only.reply("", [*(write_call(call, path) for call, path in writes.items()),
                           write_call("ok", "docs/plain.md")])
    openai_only.reply("Done.")
    asked: list[str] = []

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        asked.append(request.call_id)
        return ApprovalDecision(verdict="no")

    loop = AgentLoop(openai_only.provider(), workspace, approval="auto-edit", approver=approver)
    await loop.run("set up the agents")

    assert asked == list(writes)  # the plain file was written without asking
    assert files_of(workspace) == {**before, "docs/plain.md": "#!/bin/sh\nid\n"}
    assert set(openai_only.tool_results(2).values()) == {"the user denied this call",
                                                          "created docs/plain.md (2 lines)"}


async def test_headless_auto_edit_refuses_protected_writes_through_links(
    openai_only: Dialect, workspace: Path
) -> None:
    writes = linked_workspace(workspace)
    before = files_of(workspace)
    openai_only.reply("", [write_call(call, path) for call, path in writes.items()])
    openai_only.reply("Done.")
    loop = AgentLoop(openai_only.provider(), workspace, approval="auto-edit")
    await loop.run("set up the agents")

    results = openai_only.tool_results(2)
    assert all(results[call].startswith("not run: write_file needs approval") for call in writes), results
    assert all("(rerun with --approval full-auto)" in result for result in results.values())
    assert files_of(workspace) == before


def bash_call(call_id: str, command: str) -> tuple[str, str, str]:
    return (call_id, "bash", json.dumps({"command": command}))


async def test_a_rule_on_a_wrapped_command_asks_through_the_wrapper_and_an_allowed_wrapper_asks_for_it(
    openai_only: Dialect, workspace: Path
) -> None:
    config = config_dir() / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[permissions]\nask = ["bash(touch:*)"]\nallow = ["bash(timeout:*)", "bash(ls:*)"]\n')
    openai_only.reply("", [
        bash_call("shell", "bash -o posix -c 'touch by-shell'"),
        bash_call("glob", "/usr/bin/tou?h by-glob"),
        bash_call("wrapped", "timeout -s KILL 5 touch by-wrapper"),
    ])
    openai_only.reply("Done.")
    asked: list[str] = []

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        asked.append(request.call_id)
        return ApprovalDecision(verdict="no")

    loop = AgentLoop(openai_only.provider(), workspace, approval="full-auto", approver=approver)
    loop.gate.permissions = Permissions(loop.workspace)
    await loop.run("make the files")
    assert asked == ["shell", "glob", "wrapped"]  # full-auto asks for these only by the rule

    openai_only.reply("", [
        bash_call("allowed", "timeout -s KILL 5 ls"),
        bash_call("unlisted", "timeout 5 cp app.py copied"),
    ])
    openai_only.reply("Done.")
    loop.approval = "ask"
    await loop.run("list and copy")

    assert asked == ["shell", "glob", "wrapped", "unlisted"]  # ls is allowed, cp is not
    assert "app.py" in openai_only.tool_results(4)["allowed"]
    assert sorted(path.name for path in workspace.iterdir()) == ["app.py"]


async def test_a_yes_for_the_session_to_a_wrapped_command_covers_that_command_only(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [bash_call("first", "timeout 5 ls"), bash_call("again", "timeout 5 ls"),
                           bash_call("other", "timeout 5 touch made")])
    openai_only.reply("Done.")
    asked: list[str] = []

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        asked.append(request.call_id)
        return ApprovalDecision(verdict="session" if request.call_id == "first" else "no")

    loop = AgentLoop(openai_only.provider(), workspace, approval="ask", approver=approver)
    await loop.run("list, then make a file")

    assert asked == ["first", "other"]
    assert "app.py" in openai_only.tool_results(2)["again"]
    assert not (workspace / "made").exists()
