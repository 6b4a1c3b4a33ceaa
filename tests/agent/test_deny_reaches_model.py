"""A ``read_file`` deny rule keeps a file's content from the model whichever way it would
come: an ``@path`` import in ``AGENTS.md`` (directly or through a symlink), an
``@``-mention in a prompt or in a custom command, a custom command that is a link to the
file, a skill whose folder leads into it, grep and glob over its folder, and a local
``file://`` MCP resource. Real files and links in a tmp workspace, the rule in the real
settings files, the real session against the loopback model: the secret is in no request
the model was sent, and the user and the model are both told what was withheld."""

from __future__ import annotations

import json
import os
from pathlib import Path

from neocode_tui.agent.loop_events import Notice
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.paths import config_dir
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.headless import neocode
from tests.support.mcp_config import user_config
from tests.support.mcp_launch import script_server
from tests.support.recorder import Recorder

SECRET = "SECRET-LINE-7731"
RULE = "denied by the permission rule 'Read(./secrets/**)' (.claude/settings.json)"
WITHHELD = f"[secrets/key.txt withheld: {RULE}]"


def sent(dialect: Dialect) -> str:
    """Every request the model was sent, as one text."""
    return "\n".join(json.dumps(request.json) for request in dialect.server.requests)


def user_message(dialect: Dialect, number: int) -> str:
    return dialect.request(number)["messages"][-1]["content"]


def link(path: Path, target: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def denied_workspace(workspace: Path) -> None:
    """A secret under ``secrets/``, a project deny rule on it, and every way in to it."""
    write(workspace / "secrets" / "key.txt", f"{SECRET}\n")
    write(workspace / "secrets" / "vault" / "SKILL.md",
          f"---\nname: vault\ndescription: opens {SECRET}\n---\nThe key is {SECRET}.\n")
    write(workspace / ".claude" / "settings.json",
          json.dumps({"permissions": {"deny": ["Read(./secrets/**)"]}}))
    write(workspace / "docs" / "ok.md", "Fine words to follow.\n")
    link(workspace / "docs" / "notes.md", "../secrets/key.txt")
    write(workspace / "AGENTS.md", "Project rules.\n@secrets/key.txt\n@docs/notes.md\n@docs/ok.md\n")
    link(workspace / ".claude" / "commands" / "leak.md", "../../secrets/key.txt")
    write(workspace / ".claude" / "commands" / "peek.md", "Look at @secrets/key.txt please\n")
    link(workspace / ".claude" / "skills" / "vault", "../../secrets/vault")
    write(workspace / ".claude" / "skills" / "open" / "SKILL.md",
          "---\nname: open\ndescription: an open skill\n---\nNothing secret.\n")


def make_session(dialect: Dialect, workspace: Path) -> tuple[AgentSession, Recorder]:
    recorder = Recorder()
    session = AgentSession(Settings(provider=dialect.name, approval="ask"), workspace, FrontEnd(listener=recorder),
                           provider=dialect.provider())
    return session, recorder


def notices(recorder: Recorder) -> list[str]:
    return [event.message for event in recorder.of(Notice)]


async def test_a_denied_file_reaches_the_model_by_no_way_and_each_is_said(
    openai_only: Dialect, workspace: Path
) -> None:
    denied_workspace(workspace)
    openai_only.reply("", [
        ("g", "grep", json.dumps({"pattern": "SECRET"})),
        ("f", "glob", json.dumps({"pattern": "**/*.txt"})),
        ("r", "read_file", json.dumps({"path": "docs/notes.md"})),
        ("s", "skill", json.dumps({"name": "vault"})),
    ])
    openai_only.reply("Nothing to see.")
    openai_only.reply("Still nothing.")
    session, recorder = make_session(openai_only, workspace)

    first = await session.prompt("what is in @secrets/key.txt ?")
    leak = await session.prompt("/leak")
    await session.prompt("/peek")
    await session.aclose()

    assert first.reason == "done"
    assert SECRET not in sent(openai_only)
    system = openai_only.system(1)
    assert system.count(WITHHELD) == 2 and "Fine words to follow." in system
    assert "- open: an open skill" in system and "vault" not in system
    assert "what is in @secrets/key.txt ?" in user_message(openai_only, 1)
    assert WITHHELD in user_message(openai_only, 1)
    results = openai_only.tool_results(2)
    assert results["g"] == "[3 results in files your permission rules deny reading were left out]"
    assert results["f"] == "[1 results in files your permission rules deny reading were left out]"
    assert results["r"] == f"not run: {RULE}"
    assert results["s"].startswith("there is no skill named 'vault'")
    assert leak.reason == "error" and len(openai_only.server.requests) == 3
    assert WITHHELD in user_message(openai_only, 3)
    told = notices(recorder)
    assert f"secrets/key.txt was not imported into the instructions: {RULE}" in told
    assert f"@secrets/key.txt was not attached: {RULE}" in told


async def test_a_local_mcp_resource_a_deny_rule_covers_is_withheld(
    openai_only: Dialect, workspace: Path
) -> None:
    denied_workspace(workspace)
    user_config({"files": script_server("files", str(workspace / "secrets"))})
    key = (workspace / "secrets" / "key.txt").as_uri()
    openai_only.reply("", [("r", "read_mcp_resource", json.dumps({"server": "files", "uri": key}))])
    openai_only.reply("Nothing to see.")

    result = await neocode(openai_only, workspace, "-p", f"summarise @files:{key} please")

    assert result.code == 0, result.err
    assert SECRET not in sent(openai_only)
    assert f"@files:{key} was not attached: {RULE}" in result.err
    assert f"[{key} withheld: {RULE}]" in user_message(openai_only, 1)
    assert openai_only.tool_results(2)["r"] == f"[{key} withheld: {RULE}]"


async def test_a_skill_s_file_outside_the_workspace_is_withheld_by_a_deny_rule(
    openai_only: Dialect, workspace: Path
) -> None:
    skill = config_dir() / "skills" / "tools"
    write(skill / "SKILL.md", "---\nname: tools\ndescription: handy tools\n---\nRead secret.txt.\n")
    write(skill / "secret.txt", f"{SECRET}\n")
    write(config_dir() / "config.toml", f'[permissions]\ndeny = ["read_file(/{skill}/secret.txt)"]\n')
    openai_only.reply("", [("s", "skill", json.dumps({"name": "tools"}))])
    openai_only.reply("", [("r", "read_file", json.dumps({"path": str(skill / "secret.txt")}))])
    openai_only.reply("Nothing to see.")
    session, _ = make_session(openai_only, workspace)

    finished = await session.prompt("use the tools skill")
    await session.aclose()

    assert finished.reason == "done"
    assert SECRET not in sent(openai_only)
    rule = f"denied by the permission rule 'read_file(/{skill}/secret.txt)' ({config_dir() / 'config.toml'})"
    assert openai_only.tool_results(3)["r"] == f"[{skill / 'secret.txt'} withheld: {rule}]"
