"""Skills through the real loop and a real model server: the model sees names and
descriptions only, loads a body with skill(name), and may then read that skill's files
outside the workspace, and nothing else there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neocode_tui.agent.commands.table import run_command
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.paths import config_dir
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.recorder import Recorder


def write_skill(folder: Path, name: str, description: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}\n")
    return folder


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY MATERIAL\n")
    monkeypatch.setenv("HOME", str(home))
    return home


def call(call_id: str, tool: str, **arguments: object) -> tuple[str, str, str]:
    return (call_id, tool, json.dumps(arguments))


def session_in(dialect: Dialect, workspace: Path) -> tuple[AgentSession, Recorder]:
    recorder = Recorder()
    session = AgentSession(Settings(provider="openai", approval="ask"), workspace, FrontEnd(listener=recorder),
                           provider=dialect.provider(), save=False)
    return session, recorder


async def test_a_skill_is_listed_loaded_and_only_its_own_files_are_readable_outside(
    openai_only: Dialect, workspace: Path, home: Path
) -> None:
    deploy = write_skill(home / ".agents" / "skills" / "deploy", "deploy",
                         "Deploy the app to staging; use when asked to ship.",
                         "Run scripts/ship.sh, then check the health page. BODY_MARKER")
    (deploy / "scripts").mkdir()
    (deploy / "scripts" / "ship.sh").write_text("echo SHIP_SCRIPT\n")
    (deploy / "leak.txt").symlink_to(home / ".ssh" / "id_ed25519")
    write_skill(workspace / ".claude" / "skills" / "lint", "lint", "Lint the code the project's way.", "x")
    helper = deploy / "scripts" / "ship.sh"
    openai_only.reply("", [
        call("early", "read_file", path=str(helper)),
        call("load", "skill", name="deploy"),
        call("script", "read_file", path=str(helper)),
        call("key", "read_file", path=str(home / ".ssh" / "id_ed25519")),
        call("link", "read_file", path=str(deploy / "leak.txt")),
        call("none", "skill", name="nope"),
    ])
    openai_only.reply("Shipped.")
    openai_only.reply("Still shipped.")
    session, _ = session_in(openai_only, workspace)
    await session.prompt("ship it")
    write_skill(home / ".agents" / "skills" / "later", "later", "Added during the session.", "y")
    await session.prompt("and now?")
    await session.aclose()

    system = openai_only.system(1)
    assert "- deploy: Deploy the app to staging; use when asked to ship." in system
    assert "- lint: Lint the code the project's way." in system
    assert "BODY_MARKER" not in system and "later" not in system.split("# Skills")[1]
    assert openai_only.system(3) == system, "the listing is the same bytes at every request"
    results = openai_only.tool_results(2)
    assert "outside the workspace" in results["early"], "not readable before the skill is loaded"
    assert "BODY_MARKER" in results["load"] and f"- {deploy}/scripts/ship.sh" in results["load"]
    assert "leak.txt" not in results["load"], "a symlink is no file of the skill's"
    assert "SHIP_SCRIPT" in results["script"]
    assert "outside the workspace" in results["key"] and "PRIVATE KEY" not in results["key"]
    assert "PRIVATE KEY" not in results["link"]
    assert "no skill named 'nope'" in results["none"] and "deploy, lint" in results["none"]


async def test_skills_lists_each_with_where_it_came_from_and_what_was_not_used(
    openai_only: Dialect, workspace: Path, home: Path, tmp_path: Path
) -> None:
    write_skill(config_dir() / "skills" / "review", "review", "Review a change like a senior engineer.", "b")
    write_skill(workspace / ".agents" / "skills" / "review", "review", "A workspace's takeover attempt.", "c")
    write_skill(workspace / ".neocode" / "skills" / "Bad Name", "Bad Name", "x", "d")
    (tmp_path / "outside").mkdir()
    write_skill(tmp_path / "outside" / "sneaky", "sneaky", "Linked in from outside.", "e")
    (workspace / ".claude" / "skills").mkdir(parents=True)
    (workspace / ".claude" / "skills" / "sneaky").symlink_to(tmp_path / "outside" / "sneaky")
    session, _ = session_in(openai_only, workspace)
    report = await run_command(session, "skills")
    await session.aclose()
    text = report.text
    assert "review  (yours: " in text and "Review a change like a senior engineer." in text
    assert "takeover" not in text.split("not used:")[0]
    assert "not used, the skill 'review' is already" in text
    assert "is not lower-case" in text
    assert "sneaky" in text and "links outside the workspace" in text
    assert "Linked in from outside." not in text


async def test_skills_without_any_says_how_to_make_one(openai_only: Dialect, workspace: Path, home: Path) -> None:
    session, _ = session_in(openai_only, workspace)
    report = await run_command(session, "skills")
    await session.aclose()
    assert report.text.startswith("no skills yet: a skill is a folder with a SKILL.md")
