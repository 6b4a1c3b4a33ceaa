"""Subagents people wrote for Claude Code (NextSpark's and selfish-pipeline's, from npm), dropped
unchanged into a workspace and a home folder: read with their subfolders, each Claude Code tool
name as the NeoCode tool that does the same, the rest named as missing, never granted; their
``model`` as the provider's matching model, else the session's, said once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from neocode_tui.agent.commands.table import run_as_text
from neocode_tui.agent.delegation.agent_files import load_agents
from neocode_tui.agent.loop_events import Notice
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.settings.model import Settings
from tests.support.claude_sets import NEXTSPARK, SELFISH, copied
from tests.support.dialects import Dialect
from tests.support.headless import run
from tests.support.recorder import Recorder

PARENT_PROMPT = "build the orders endpoint"
BACKEND_TOOLS = ("bash", "glob", "grep", "read_file", "edit_file", "write_file", "todo_write",
                 "bash_output", "kill_bash")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def installed(workspace: Path, home: Path) -> Path:
    """NextSpark's agents in a subfolder of the project's, selfish-pipeline's in the user's."""
    copied(NEXTSPARK / "agents", workspace / ".claude" / "agents" / "nextspark")
    copied(SELFISH / "agents", home / ".claude" / "agents")
    return workspace


def task(agent: str, prompt: str) -> str:
    return json.dumps({"description": "backend work", "prompt": prompt, "agent": agent})


def tool_names(dialect: Dialect, body: dict[str, Any]) -> list[str]:
    tools = body.get("tools") or []
    return sorted(tool["function"]["name"] if dialect.name == "openai" else tool["name"] for tool in tools)


def test_claude_code_tool_names_are_ours_and_the_missing_ones_are_never_granted(installed: Path) -> None:
    catalog = load_agents(installed)

    backend = catalog.agents["backend-developer"]
    assert backend.tools == BACKEND_TOOLS
    assert backend.missing == ("AskUserQuestion",)
    assert backend.model == "sonnet"
    assert catalog.agents["code-reviewer"].tools == (*BACKEND_TOOLS, "mcp__clickup__*")
    architect = catalog.agents["selfish-architect"]
    assert architect.tools == ("read_file", "write_file", "grep", "glob", "bash")
    assert architect.missing == ("Task", "WebSearch")
    security = catalog.agents["selfish-security"]
    assert (security.ignored, security.isolation) == (("memory",), "worktree")
    assert architect.skills == ("docs/critic-loop-rules.md", "docs/phase-gate-protocol.md")
    # explore, NextSpark's but one, selfish-pipeline's: Claude Code also needs front matter
    assert len(catalog.agents) == 1 + 21 + 2
    [problem] = catalog.problems
    assert problem.endswith("nextspark/mock-analyst.md: no front matter (--- name: ... description: ... ---)")


async def test_agents_names_what_each_agent_does_not_get(
    openai_only: Dialect, installed: Path
) -> None:
    session = AgentSession(Settings(provider="openai"), installed, provider=openai_only.provider(), save=False)

    report = (await run_as_text(session, "agents", "", answer=False)).text

    assert ("  tools: bash, glob, grep, read_file, edit_file, write_file, todo_write, bash_output, "
            "kill_bash · model: sonnet\n  not granted, no equivalent here: AskUserQuestion") in report
    assert ("  skills preloaded: docs/critic-loop-rules.md, docs/phase-gate-protocol.md\n"
            "  not granted, no equivalent here: Task (a subagent starts no subagent), WebSearch\n"
            "  no effect here: memory (docs/extending.md)") in report
    assert "AskUserQuestion" not in report.split("not granted")[0]
    lines = report.splitlines()
    [security] = [number for number, line in enumerate(lines) if line.startswith("selfish-security (user, ")]
    assert lines[security + 3] == "  works in a git worktree of its own (isolation: worktree)"
    await session.aclose()


async def test_a_claude_model_on_another_provider_runs_on_the_session_model_said_once(
    openai_only: Dialect, installed: Path
) -> None:
    openai_only.reply("", [("t1", "task", task("backend-developer", "add GET /orders")),
                           ("t2", "task", task("backend-developer", "add POST /orders"))])
    openai_only.reply("GET done.")
    openai_only.reply("POST done.")
    openai_only.reply("", [("t3", "task", task("selectors-translator", "translate the selectors"))])
    openai_only.reply("Translated.")
    openai_only.reply("All done.")
    recorder = Recorder()
    session = AgentSession(Settings(provider="openai", approval="full-auto"), installed,
                           FrontEnd(listener=recorder), provider=openai_only.provider(), save=False)

    await session.prompt(PARENT_PROMPT)

    children = [r.json for r in openai_only.server.requests if PARENT_PROMPT not in json.dumps(r.json)]
    assert len(children) == 3
    assert {child["model"] for child in children} == {"gpt-test"}
    assert tool_names(openai_only, children[0]) == sorted(BACKEND_TOOLS)
    notes = [(n.message, n.call_id) for n in recorder.of(Notice) if "agent " in n.message]
    model_notes = [note for note in notes if "asks for the model" in note[0]]
    assert len(model_notes) == 1 and model_notes[0][1] in ("t1", "t2")
    assert ("'sonnet', which openai has no match for: agents whose model is not found run on "
            "gpt-test") in model_notes[0][0]
    missing = sorted(note for note in notes if "runs without" in note[0])
    assert [message for message, _ in missing] == [
        "agent backend-developer runs without AskUserQuestion: no such tool here",
        "agent selectors-translator runs without AskUserQuestion: no such tool here",
    ]
    await session.aclose()


async def test_a_claude_model_alias_is_that_model_of_an_anthropic_provider(
    dialect: Dialect, installed: Path
) -> None:
    dialect.reply("", [("t1", "task", task("backend-developer", "add GET /orders"))])
    dialect.reply("GET done.")
    dialect.reply("Done.")
    recorder = Recorder()
    session = AgentSession(Settings(provider=dialect.name), installed, FrontEnd(listener=recorder),
                           provider=dialect.provider(), save=False)

    await session.prompt(PARENT_PROMPT)

    models = [r.json["model"] for r in dialect.server.requests]
    fallback = [n for n in recorder.of(Notice) if "asks for the model" in n.message]
    if dialect.name == "anthropic":
        assert models == ["claude-test", "claude-sonnet-4-5", "claude-test"]
        assert fallback == []
        assert {cost.model: cost.requests for cost in session.meter.costs} == {
            "claude-test": 2, "claude-sonnet-4-5": 1}
    else:
        assert models == ["gpt-test", "gpt-test", "gpt-test"]
        assert len(fallback) == 1
    await session.aclose()


async def test_headless_says_the_missing_tools_once_on_stderr(
    openai_only: Dialect, installed: Path, home: Path
) -> None:
    openai_only.reply("", [("t1", "task", task("backend-developer", "add GET /orders"))])
    openai_only.reply("GET done.")
    openai_only.reply("", [("t2", "task", task("backend-developer", "add POST /orders"))])
    openai_only.reply("POST done.")
    openai_only.reply("Both endpoints are there.")

    result = await run(openai_only, installed, "--approval", "full-auto", prompt=PARENT_PROMPT, HOME=str(home))

    assert result.code == 0, result.err
    assert result.out.endswith("Both endpoints are there.\n")
    assert result.err.count("agent backend-developer runs without AskUserQuestion: no such tool here") == 1
    assert result.err.count("asks for the model 'sonnet'") == 1


async def test_an_agent_starts_with_the_skills_its_file_lists_and_says_the_ones_not_found(
    openai_only: Dialect, installed: Path
) -> None:
    skill = copied(NEXTSPARK / "skills" / "rate-limiting", installed / ".claude" / "skills" / "rate-limiting")
    (installed / ".claude" / "agents" / "api-reviewer.md").write_text(
        "---\nname: api-reviewer\ndescription: Reviews API endpoints\ntools: Read, Grep\n"
        "skills: rate-limiting, no-such-skill\n---\nReview the endpoint you are given.\n")
    openai_only.reply("", [("t1", "task", task("api-reviewer", "review GET /orders")),
                           ("t2", "task", task("selfish-architect", "sketch the design"))])
    openai_only.reply("Rate limited.")
    openai_only.reply("Designed.")
    openai_only.reply("Both done.")
    recorder = Recorder()
    session = AgentSession(Settings(provider="openai", approval="full-auto"), installed,
                           FrontEnd(listener=recorder), provider=openai_only.provider(), save=False)

    await session.prompt(PARENT_PROMPT)

    systems = {json.dumps(request.json["messages"][1:]): request.json["messages"][0]["content"]
               for request in openai_only.server.requests if PARENT_PROMPT not in json.dumps(request.json)}
    [reviewer] = [system for asked, system in systems.items() if "review GET /orders" in asked]
    [architect] = [system for asked, system in systems.items() if "sketch the design" in asked]
    assert reviewer.startswith("Review the endpoint you are given.\n\n# Skill rate-limiting (.claude/skills/")
    body = (skill / "SKILL.md").read_text().split("---\n", 2)[2].strip()
    assert body.startswith("# Rate Limiting Skill") and body[:400] in reviewer
    assert "# Skill " not in architect
    notes = sorted(n.message for n in recorder.of(Notice) if "starts without" in n.message)
    assert notes == [
        "agent api-reviewer starts without some of its skills: there is no skill named 'no-such-skill' "
        "for you to load",
        "agent selfish-architect starts without some of its skills: there is no skill named "
        "'docs/critic-loop-rules.md' for you to load; there is no skill named "
        "'docs/phase-gate-protocol.md' for you to load",
    ]
    report = (await run_as_text(session, "agents", "", answer=False)).text
    assert "  skills preloaded: rate-limiting, no-such-skill\n" in report
    await session.aclose()
