"""``!`command``` lines of selfish-pipeline's real command files (from npm): run before the
prompt is sent, through the bash tool's rules, mode, approvals and sandbox, their output in
the prompt; one that is not run is replaced by a line saying why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from neocode_tui.agent.loop_events import ApprovalDecision, ApprovalRequested, ToolFinished
from neocode_tui.agent.permissions.session_rules import RunOptions
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.settings.model import Settings
from tests.support.claude_sets import SELFISH, copied
from tests.support.dialects import Dialect
from tests.support.headless import run
from tests.support.recorder import Recorder

CONFIG = "# selfish config\nci: pytest -q\nCONFIG_MARKER_4711\n"
CONFIG_LINE = '!`cat .claude/selfish.config.md 2>/dev/null || echo "[CONFIG NOT FOUND]'


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def sent(dialect: Dialect, number: int = 1) -> str:
    """The last user message of request ``number``, as text."""
    content = [m for m in dialect.request(number)["messages"] if m["role"] == "user"][-1]["content"]
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


def session_with(dialect: Dialect, workspace: Path, approval: str = "auto-edit", **options: Any
                 ) -> tuple[AgentSession, Recorder]:
    recorder = Recorder()
    front = FrontEnd(listener=recorder, approver=options.pop("approver", None))
    session = AgentSession(Settings(provider=dialect.name, approval=approval), workspace, front,
                           provider=dialect.provider(), save=False, **options)
    return session, recorder


async def test_a_user_command_s_line_runs_in_the_sandbox_and_its_output_is_sent(
    openai_only: Dialect, workspace: Path, home: Path
) -> None:
    copied(SELFISH / "commands", home / ".claude" / "commands" / "selfish")
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "selfish.config.md").write_text(CONFIG)
    openai_only.reply("Reviewed.")
    openai_only.reply("Reviewed again.")
    session, recorder = session_with(openai_only, workspace)

    await session.prompt("/selfish:review staged")
    await session.prompt("/review app.py")  # the file's own name, where no other command has it

    first = sent(openai_only)
    assert "CONFIG_MARKER_4711" in first and "!`cat" not in first
    assert "- `staged` — (optional) Review scope" in first
    assert "`app.py` = file path" in sent(openai_only, 2)
    [ran, _] = [e for e in recorder.of(ToolFinished) if e.call_id.startswith("inline-")]
    assert ran.name == "bash" and ran.status == "ok" and "CONFIG_MARKER_4711" in ran.result
    await session.aclose()


async def test_a_denied_line_is_replaced_by_why_and_the_rest_of_the_prompt_goes(
    openai_only: Dialect, workspace: Path, home: Path
) -> None:
    copied(SELFISH / "commands" / "spec.md", home / ".claude" / "commands" / "spec.md")
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "selfish.config.md").write_text(CONFIG)
    openai_only.reply("Specified.")
    session, _ = session_with(openai_only, workspace, run=RunOptions(disallowed_tools=("Bash(cat:*)",)))

    await session.prompt("/spec a login form")

    text = sent(openai_only)
    assert "CONFIG_MARKER_4711" not in text
    assert '[!`cat .claude/selfish.config.md 2>/dev/null || echo "[CONFIG NOT FOUND]' in text
    assert "` was not run: denied by the permission rule 'Bash(cat:*)'" in text
    assert "a login form" in text
    await session.aclose()


async def test_in_ask_mode_the_user_is_asked_and_a_no_is_said_in_the_prompt(
    openai_only: Dialect, workspace: Path, home: Path
) -> None:
    copied(SELFISH / "commands" / "plan.md", home / ".claude" / "commands" / "plan.md")
    asked: list[ApprovalRequested] = []

    async def no(request: ApprovalRequested) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision(verdict="no")

    openai_only.reply("Planned.")
    session, _ = session_with(openai_only, workspace, approval="ask", approver=no)

    await session.prompt("/plan")

    [question] = asked
    assert question.name == "bash" and question.command is not None
    assert question.command.startswith("cat .claude/selfish.config.md")
    assert "` was not run: the user denied this call]" in sent(openai_only)
    await session.aclose()


async def test_headless_runs_nothing_a_repository_s_command_asks_for_in_an_untrusted_folder(
    openai_only: Dialect, workspace: Path, home: Path
) -> None:
    copied(SELFISH / "commands", workspace / ".claude" / "commands")
    (workspace / ".claude" / "selfish.config.md").write_text(CONFIG)
    openai_only.reply("Reviewed.")

    result = await run(openai_only, workspace, "--approval", "full-auto", prompt="/review staged",
                       HOME=str(home))

    assert result.code == 0, result.err
    text = sent(openai_only)
    assert "CONFIG_MARKER_4711" not in text
    assert ("` was not run: the command file is the workspace's, this folder is not trusted, and "
            "nobody can approve it in this run]") in text
