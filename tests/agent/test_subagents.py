"""``task``: child agents with fresh contexts, against the loopback model over real HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from neocode_tui.agent.delegation.agent_files import EXPLORE_PROMPT, load_agents
from neocode_tui.agent.loop_events import (
    ApprovalDecision,
    ApprovalRequested,
    SubagentDone,
    SubagentEvent,
    ToolFinished,
    TranscriptReplaced,
)
from neocode_tui.agent.permissions.session_rules import RunOptions
from neocode_tui.agent.transcript import STOPPED
from neocode_tui.paths import config_dir
from neocode_tui.settings.model import Settings
from neocode_tui.trust import trust
from tests.support.dialects import API_KEY, Dialect
from tests.support.model_server import Response
from tests.support.subagent_sessions import PARENT_PROMPT, agent_file, make_session, task
from tests.support.transcripts import assert_transcript_valid
from tests.support.waits import wait_until


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No agent of the developer's ``~/.claude/agents`` reaches a test."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def user_texts(dialect: Dialect, body: dict[str, Any]) -> list[str]:
    """The user messages' text of one request, in order."""
    texts = []
    for message in body["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, str):
            texts.append(content)
        else:
            texts += [block["text"] for block in content if block.get("type") == "text"]
    return texts


def tool_names(dialect: Dialect, body: dict[str, Any]) -> list[str]:
    tools = body.get("tools") or []
    return sorted(tool["function"]["name"] if dialect.name == "openai" else tool["name"] for tool in tools)


def child_requests(dialect: Dialect) -> list[dict[str, Any]]:
    return [r.json for r in dialect.server.requests if PARENT_PROMPT not in json.dumps(r.json)]


async def test_two_tasks_run_at_once_with_fresh_contexts_and_answer_the_parent(
    dialect: Dialect, workspace: Path
) -> None:
    both_asked = asyncio.Event()
    answers = {"where is A": "A is in a.py", "where is B": "B is in b.py"}
    asked: list[str] = []

    def child(body: dict[str, Any]) -> Response:
        [prompt] = user_texts(dialect, body)
        asked.append(prompt)
        if len(asked) == 2:
            both_asked.set()
        # Each child's answer waits until both children have asked: only concurrent ones can.
        return Response(body=dialect.turn(answers[prompt]), wait=both_asked)

    dialect.reply("", [("t1", "task", task("find A", "where is A")),
                       ("t2", "task", task("find B", "where is B"))])
    dialect.server.enqueue(child, child)
    dialect.reply("Both found.")
    session, recorder = make_session(dialect, workspace)

    finished = await session.prompt(PARENT_PROMPT)

    assert finished.reason == "done" and finished.final_text == "Both found."
    assert sorted(asked) == ["where is A", "where is B"]
    for body in child_requests(dialect):
        assert len(body["messages"]) == (2 if dialect.name == "openai" else 1)  # system + prompt
        assert EXPLORE_PROMPT in dialect.system(dialect.server.requests.index(
            next(r for r in dialect.server.requests if r.json is body)) + 1)
        assert tool_names(dialect, body) == ["bash", "glob", "grep", "list_dir", "read_file"]
    results = dialect.tool_results(4)
    assert results["t1"].startswith("A is in a.py") and results["t2"].startswith("B is in b.py")
    assert "[explore: 10 input and 5 output tokens]" in results["t1"]
    assert session.usage.input_tokens == 40 and session.usage.output_tokens == 20
    assert sum(cost.requests for cost in session.meter.costs) == 4
    done = {event.call_id: event for event in recorder.of(SubagentDone)}
    assert [m.content for m in done["t1"].messages] == ["where is A", "A is in a.py"]
    assert {event.call_id for event in recorder.of(SubagentEvent)} == {"t1", "t2"}
    assert_transcript_valid(session.loop)
    await session.aclose()


async def test_a_custom_agent_gets_only_its_tools(openai_only: Dialect, workspace: Path) -> None:
    agent_file(workspace / ".claude" / "agents", "reviewer",
               "description: Reviews code for bugs\ntools: Read, Grep, Task")
    openai_only.reply("", [("t1", "task", task("review", "review app.py", "reviewer"))])
    openai_only.reply("", [("c1", "write_file", json.dumps({"path": "x.txt", "content": "no"}))])
    openai_only.reply("Looks fine.")
    openai_only.reply("Reviewed.")
    session, _ = make_session(openai_only, workspace, approval="full-auto")

    await session.prompt(PARENT_PROMPT)

    parent_tools = openai_only.request(1)["tools"]
    [task_spec] = [tool["function"] for tool in parent_tools if tool["function"]["name"] == "task"]
    assert "- reviewer: Reviews code for bugs" in task_spec["description"]
    child = openai_only.request(2)
    assert tool_names(openai_only, child) == ["grep", "read_file"]
    assert "You check things." in child["messages"][0]["content"]
    assert "no tool named 'write_file'" in openai_only.tool_results(3)["c1"]
    assert not (workspace / "x.txt").exists()
    assert openai_only.tool_results(4)["t1"].startswith("Looks fine.")
    await session.aclose()


async def test_a_childs_write_asks_the_user_naming_the_agent(openai_only: Dialect, workspace: Path) -> None:
    agent_file(workspace / ".neocode" / "agents", "writer", "description: Writes notes\ntools: Write")
    openai_only.reply("", [("t1", "task", task("note", "write a note", "writer"))])
    openai_only.reply("", [("c1", "write_file", json.dumps({"path": "note.txt", "content": "hi\n"}))])
    openai_only.reply("Wrote it.")
    openai_only.reply("Done.")
    asked: list[ApprovalRequested] = []

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision(verdict="yes")

    session, _ = make_session(openai_only, workspace, approver=approver)
    await session.prompt(PARENT_PROMPT)

    [request] = asked
    assert (request.agent, request.parent_call_id, request.name) == ("writer", "t1", "write_file")
    assert (workspace / "note.txt").read_text() == "hi\n"
    await session.aclose()


async def test_a_child_in_plan_mode_cannot_write(openai_only: Dialect, workspace: Path) -> None:
    agent_file(workspace / ".neocode" / "agents", "writer", "description: Writes notes\ntools: Write")
    openai_only.reply("", [("t1", "task", task("note", "write a note", "writer"))])
    openai_only.reply("", [("c1", "write_file", json.dumps({"path": "note.txt", "content": "hi\n"}))])
    openai_only.reply("Could not.")
    openai_only.reply("Done.")
    session, _ = make_session(openai_only, workspace, approval="plan")

    await session.prompt(PARENT_PROMPT)

    assert "plan mode is on" in openai_only.tool_results(3)["c1"]
    assert not (workspace / "note.txt").exists()
    await session.aclose()


async def test_a_deny_rule_holds_inside_a_child(openai_only: Dialect, workspace: Path) -> None:
    """A ``task`` is no way around the user's rules: even in full-auto, a child's call a
    deny rule names is refused as the parent's would be."""
    agent_file(workspace / ".neocode" / "agents", "writer", "description: Writes notes\ntools: Write")
    openai_only.reply("", [("t1", "task", task("note", "write a note", "writer"))])
    openai_only.reply("", [("c1", "write_file", json.dumps({"path": "note.txt", "content": "hi\n"}))])
    openai_only.reply("Could not.")
    openai_only.reply("Done.")
    session, _ = make_session(openai_only, workspace, approval="full-auto",
                              run=RunOptions(disallowed_tools=("Write",)))

    await session.prompt(PARENT_PROMPT)

    assert openai_only.tool_results(3)["c1"].startswith("not run: denied by the permission rule 'Write'")
    assert not (workspace / "note.txt").exists()
    await session.aclose()


async def test_cancel_stops_the_children_with_the_turn(openai_only: Dialect, workspace: Path) -> None:
    never = asyncio.Event()
    openai_only.reply("", [("t1", "task", task("find A", "where is A")),
                           ("t2", "task", task("find B", "where is B"))])
    held = Response(body=openai_only.turn("late"), wait=never)
    openai_only.server.enqueue(held, held)
    session, recorder = make_session(openai_only, workspace)

    run = asyncio.create_task(session.prompt(PARENT_PROMPT))
    await wait_until(lambda: len(openai_only.server.requests) == 3, what="both children asking")
    assert session.cancel()
    finished = await run

    assert finished.reason == "cancelled"
    results = {event.call_id: event for event in recorder.of(ToolFinished) if event.turn == 1}
    assert {results["t1"].result, results["t2"].result} == {STOPPED}
    assert len(recorder.of(SubagentDone)) == 2
    assert_transcript_valid(session.loop)
    await session.aclose()


async def test_subagent_stop_hook_keeps_the_child_going(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    log = tmp_path / "stop.log"
    script = tmp_path / "stop.py"
    script.write_text(
        "import json, sys\n"
        "event = json.load(sys.stdin)\n"
        f"open({str(log)!r}, 'a').write(json.dumps(event) + '\\n')\n"
        "if not event['stop_hook_active']:\n"
        "    print('check the tests too', file=sys.stderr); sys.exit(2)\n"
    )
    hooks = {"SubagentStop": [{"hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}]}
    (config_dir() / "hooks.json").parent.mkdir(parents=True, exist_ok=True)
    (config_dir() / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    openai_only.reply("", [("t1", "task", task("find A", "where is A"))])
    openai_only.reply("A is in a.py.")
    openai_only.reply("Tests are in test_a.py.")
    openai_only.reply("Done.")
    session, _ = make_session(openai_only, workspace)

    await session.prompt(PARENT_PROMPT)

    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(e["hook_event_name"], e["stop_hook_active"]) for e in events] == [
        ("SubagentStop", False), ("SubagentStop", True)]
    assert events[0]["session_id"] == session.id and events[0]["agent_type"] == "explore"
    assert "check the tests too" in user_texts(openai_only, openai_only.request(3))[-1]
    assert openai_only.tool_results(4)["t1"].startswith("Tests are in test_a.py.")
    await session.aclose()


async def test_a_resumed_session_brings_the_child_transcripts(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [("t1", "task", task("find A", "where is A"))])
    openai_only.reply("A is in a.py.")
    openai_only.reply("Done.")
    session, recorder = make_session(openai_only, workspace)
    await session.prompt(PARENT_PROMPT)
    saved = session.id
    session.clear()

    session.resume(saved)

    replaced = recorder.of(TranscriptReplaced)[-1]
    assert [m.content for m in replaced.subagents["t1"]] == ["where is A", "A is in a.py."]
    assert session.usage.input_tokens == 30
    await session.aclose()


def test_workspace_agents_narrow_and_never_pick_a_profile_untrusted(workspace: Path) -> None:
    agent_file(workspace / ".claude" / "agents", "explore", "description: Takes over")
    agent_file(workspace / ".claude" / "agents", "fast", "description: Fast\nmodel: cheap")
    agent_file(config_dir() / "agents", "mine", "description: The user's\nmodel: cheap")
    agent_file(workspace / ".neocode" / "agents", "mine", "description: Not the user's")

    catalog = load_agents(workspace)

    assert catalog.agents["explore"].source == "built-in"
    assert catalog.agents["mine"].source == "user" and catalog.agents["mine"].model_allowed
    assert not catalog.agents["fast"].model_allowed
    problems = "\n".join(catalog.problems)
    assert "'explore' is taken by the built-in agent" in problems
    assert "model 'cheap' not used, this folder is not trusted" in problems
    assert "'mine' is taken by" in problems
    trust(workspace)
    assert load_agents(workspace).agents["fast"].model_allowed


async def test_agents_command_lists_every_agent_and_the_files_not_used(
    openai_only: Dialect, workspace: Path
) -> None:
    from neocode_tui.agent.commands.table import run_as_text

    agent_file(workspace / ".claude" / "agents", "reviewer", "description: Reviews code\ntools: Read")
    (workspace / ".claude" / "agents" / "broken.md").write_text("no front matter\n")
    session, _ = make_session(openai_only, workspace)

    shown = await run_as_text(session, "agents", "", answer=False)

    assert shown.text.startswith("explore (built-in)\n  Read-only research")
    assert "reviewer (project, " in shown.text and "tools: read_file · model: the session's model" in shown.text
    assert "broken.md: no front matter" in shown.text
    await session.aclose()


async def test_at_most_four_tasks_run_at_once(openai_only: Dialect, workspace: Path) -> None:
    prompts = [f"look at part {n}" for n in range(5)]
    openai_only.reply("", [(f"t{n}", "task", task(f"part {n}", prompt)) for n, prompt in enumerate(prompts)])
    four_asked = asyncio.Event()
    asked: list[str] = []

    def child(body: dict[str, Any]) -> Response:
        [prompt] = user_texts(openai_only, body)
        asked.append(prompt)
        if len(asked) == 4:
            four_asked.set()
        return Response(body=openai_only.turn(f"seen {prompt}"), wait=four_asked)

    openai_only.server.enqueue(*[child] * 5)
    openai_only.reply("All seen.")
    session, recorder = make_session(openai_only, workspace)

    await session.prompt(PARENT_PROMPT)

    running, most = set(), 0
    for event in recorder.events:
        if isinstance(event, SubagentEvent) and event.event.type == "turn_started":
            running.add(event.call_id)
            most = max(most, len(running))
        elif isinstance(event, SubagentDone):
            running.discard(event.call_id)
    assert most == 4
    results = openai_only.tool_results(7)
    assert [results[f"t{n}"].splitlines()[0] for n in range(5)] == [f"seen {p}" for p in prompts]
    await session.aclose()


async def test_the_task_tool_stays_the_same_bytes_all_session(openai_only: Dialect, workspace: Path) -> None:
    openai_only.reply("First.")
    openai_only.reply("Second.")
    session, _ = make_session(openai_only, workspace)
    await session.prompt("one")
    agent_file(workspace / ".claude" / "agents", "late", "description: Added mid-session")
    await session.prompt("two")

    specs = [[t for t in openai_only.request(n)["tools"] if t["function"]["name"] == "task"] for n in (1, 2)]
    assert specs[0] == specs[1] and "late" not in json.dumps(specs[1])
    await session.aclose()


async def test_an_agents_model_picks_a_profile_only_where_it_may(openai_only: Dialect, workspace: Path) -> None:
    from neocode_tui.settings.load import Profiles

    cheap = Settings(provider="openai", base_url=openai_only.server.url + "/v1", model="cheap-model",
                     openai_api_key=API_KEY, max_retries=0)
    profiles = Profiles(names=["cheap"], load=lambda name: cheap)
    agent_file(config_dir() / "agents", "mine", "description: The user's\nmodel: cheap")
    agent_file(workspace / ".claude" / "agents", "theirs", "description: The project's\nmodel: cheap")
    openai_only.reply("", [("t1", "task", task("a", "use yours", "mine"))])
    openai_only.reply("Mine.")
    openai_only.reply("", [("t2", "task", task("b", "use theirs", "theirs"))])
    openai_only.reply("Theirs.")
    openai_only.reply("Done.")
    session, _ = make_session(openai_only, workspace, profiles=profiles)

    await session.prompt(PARENT_PROMPT)

    models = [r.json["model"] for r in openai_only.server.requests]
    assert models == ["gpt-test", "cheap-model", "gpt-test", "gpt-test", "gpt-test"]
    assert {cost.model: cost.requests for cost in session.meter.costs} == {"gpt-test": 4, "cheap-model": 1}
    await session.aclose()


BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
"""YAML aliases: each level ten times the last; a few more and printing it takes the machine."""


def test_front_matter_that_is_not_text_is_refused_never_printed(workspace: Path) -> None:
    folder = workspace / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "bomb.md").write_text(f"---\n{BOMB}name: *b\ndescription: Fine\n---\nPrompt.\n")
    (folder / "tools.md").write_text(f"---\n{BOMB}description: Fine\ntools: [Read, *b]\n---\nPrompt.\n")
    commands = workspace / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "bomb.md").write_text(f"---\n{BOMB}description: *b\n---\nReview the code.\n")

    catalog = load_agents(workspace)

    assert "bomb.md: name must be text" in "\n".join(catalog.problems)
    assert catalog.agents["tools"].tools == ("read_file",)
    from neocode_tui.agent.extensions.custom_commands import load_commands

    assert load_commands(workspace).commands["bomb"].description == "Review the code."


async def test_concurrent_children_change_things_one_at_a_time(openai_only: Dialect, workspace: Path) -> None:
    """Two commands that could only finish together (each end of one pipe): run one at a
    time, each waits for the other until its time limit ends it."""
    os.mkfifo(workspace / "pipe")
    agent_file(workspace / ".neocode" / "agents", "runner", "description: Runs commands\ntools: Bash")
    commands = {"speak": "echo hello > pipe", "listen": "cat pipe"}
    openai_only.reply("", [(f"t-{name}", "task", task(name, name, "runner")) for name in commands])

    def child(body: dict[str, Any]) -> Response:
        [prompt] = user_texts(openai_only, body)
        if len(body["messages"]) == 2:
            command = json.dumps({"command": commands[prompt], "timeout": 1})
            return Response(body=openai_only.turn("", [(f"c-{prompt}", "bash", command)]))
        return Response(body=openai_only.turn(f"{prompt} ended"))

    openai_only.server.enqueue(*[child] * 4)
    openai_only.reply("Both ended.")
    session, recorder = make_session(openai_only, workspace, approval="full-auto")

    await session.prompt(PARENT_PROMPT)

    results = {e.event.call_id: e.event.result for e in recorder.of(SubagentEvent)
               if isinstance(e.event, ToolFinished)}
    assert all("timed out after 1s" in results[f"c-{name}"] for name in commands), results
    await session.aclose()
