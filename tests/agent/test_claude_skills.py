"""NextSpark's skills (from npm) in the user's ~/.claude/skills, as Claude Code reads them: each
one the user may invoke is a slash command with its arguments filled, the model sees the
others' names, and a skill in use has its folder bound read-only into the sandbox, so its
bundled scripts run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neocode_tui.agent.commands.table import run_as_text
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.settings.model import Settings
from tests.support.claude_sets import NEXTSPARK, copied
from tests.support.dialects import Dialect
from tests.support.headless import run
from tests.support.recorder import Recorder


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def skills(home: Path) -> Path:
    return copied(NEXTSPARK / "skills", home / ".claude" / "skills")


def session_in(dialect: Dialect, workspace: Path) -> AgentSession:
    return AgentSession(Settings(provider="openai", approval="auto-edit"), workspace,
                        FrontEnd(listener=Recorder()), provider=dialect.provider(), save=False)


def last_user_text(dialect: Dialect, number: int) -> str:
    content = [m for m in dialect.request(number)["messages"] if m["role"] == "user"][-1]["content"]
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


async def test_every_skill_is_a_slash_command_and_the_model_sees_its_name(
    openai_only: Dialect, workspace: Path, skills: Path
) -> None:
    openai_only.reply("Scaffolded.")
    session = session_in(openai_only, workspace)

    listed = {command.name: command for command in session.prompt_commands()}
    assert listed["session-management"].label == "Session Management Skill (user skill)"
    assert "nextjs-api-development" in listed and "entity-system" in listed
    await session.prompt("/nextjs-api-development orders")

    sent = last_user_text(openai_only, 1)
    body = (skills / "nextjs-api-development" / "SKILL.md").read_text()
    assert sent.startswith(body.split("---", 2)[2].strip()[:200])
    assert 'LIMIT $1 OFFSET $2' in sent  # SQL parameters are no arguments
    assert sent.endswith("\n\nARGUMENTS: orders")
    assert "- session-management: Session Management Skill" in openai_only.system(1)
    report = (await run_as_text(session, "skills", "", answer=False)).text
    assert "no effect here: allowed-tools (docs/extending.md)" in report
    await session.aclose()


async def test_a_skill_s_bundled_script_runs_once_the_skill_is_in_use(
    openai_only: Dialect, workspace: Path, skills: Path
) -> None:
    script = skills / "session-management" / "scripts" / "session-list.sh"
    listing = json.dumps({"command": f"bash {script}"})
    openai_only.reply("", [("c1", "bash", listing)])
    openai_only.reply("The skill's folder is hidden.")
    openai_only.reply("", [("c2", "bash", listing)])
    openai_only.reply("Listed.")
    session = session_in(openai_only, workspace)

    await session.prompt("list the sessions")
    await session.prompt("/session-management")

    before = openai_only.tool_results(2)["c1"]
    assert "SESSION LIST" not in before and "[exit code" in before
    after = openai_only.tool_results(4)["c2"]
    assert "=== SESSION LIST ===" in after and "(no active sessions)" in after
    await session.aclose()


async def test_who_may_invoke_a_skill_follows_its_front_matter(
    openai_only: Dialect, workspace: Path, home: Path
) -> None:
    for name, front in (("deploy", "disable-model-invocation: true"), ("house-style", "user-invocable: false")):
        folder = home / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill\n{front}\n---\n"
                                         f"Do {name} for $ARGUMENTS, as ${{CLAUDE_SKILL_DIR}}/guide.md says.\n")
    openai_only.reply("", [("c1", "skill", json.dumps({"name": "deploy"})),
                           ("c2", "skill", json.dumps({"name": "house-style"}))])
    openai_only.reply("I may not.")
    openai_only.reply("Deploying.")
    session = session_in(openai_only, workspace)

    assert {command.name for command in session.prompt_commands()} == {"deploy"}
    await session.prompt("ship it")
    await session.prompt("/deploy staging")

    system = openai_only.system(1)
    assert "- house-style: The house-style skill" in system and "deploy" not in system
    results = openai_only.tool_results(2)
    assert "deploy is run by the user only, as /deploy" in results["c1"]
    assert f"as {home / '.claude' / 'skills' / 'house-style'}/guide.md says." in results["c2"]
    assert last_user_text(openai_only, 3) == (
        f"Do deploy for staging, as {home / '.claude' / 'skills' / 'deploy'}/guide.md says.")
    await session.aclose()


async def test_headless_runs_a_skill_by_its_name(openai_only: Dialect, workspace: Path, skills: Path,
                                                 home: Path) -> None:
    openai_only.reply("Migrations planned.")

    result = await run(openai_only, workspace, prompt="/database-migrations add a column", HOME=str(home))

    assert result.code == 0, result.err
    assert result.out == "Migrations planned.\n"
    sent = last_user_text(openai_only, 1)
    assert "add a column" in sent and sent != "/database-migrations add a column"
