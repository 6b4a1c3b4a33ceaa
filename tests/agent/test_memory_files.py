"""Instruction files in layers through the real loop and model server: the root's from the
start, a folder's with the first read or edit under it (once, said on screen), CLAUDE.md
where a folder has no AGENTS.md, @imports inside the workspace only, /memory, and a
compaction that keeps them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neocode_tui.agent.commands.table import run_command
from neocode_tui.agent.loop_events import Notice
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.paths import config_dir
from neocode_tui.settings.model import Settings
from tests.support.dialects import Dialect
from tests.support.recorder import Recorder


def call(call_id: str, tool: str, **arguments: object) -> tuple[str, str, str]:
    return (call_id, tool, json.dumps(arguments))


def session_in(dialect: Dialect, workspace: Path) -> tuple[AgentSession, Recorder]:
    recorder = Recorder()
    session = AgentSession(Settings(provider="openai", approval="full-auto"), workspace, FrontEnd(listener=recorder),
                           provider=dialect.provider(), save=False)
    return session, recorder


@pytest.fixture
def layered(workspace: Path) -> Path:
    (workspace / "AGENTS.md").write_text("ROOT RULES\n")
    (workspace / "sub" / "deep").mkdir(parents=True)
    (workspace / "sub" / "AGENTS.md").write_text("SUB RULES\n")
    (workspace / "sub" / "x.py").write_text("x = 1\n")
    (workspace / "sub" / "deep" / "CLAUDE.md").write_text("DEEP RULES (from CLAUDE.md)\n")
    (workspace / "sub" / "deep" / "y.py").write_text("y = 2\n")
    (workspace / "other").mkdir()
    (workspace / "other" / "AGENTS.md").write_text("OTHER AGENTS RULES\n")
    (workspace / "other" / "CLAUDE.md").write_text("OTHER CLAUDE RULES\n")
    (workspace / "other" / "z.py").write_text("z = 3\n")
    return workspace


async def test_a_folders_instructions_arrive_with_the_first_read_or_edit_there_once(
    openai_only: Dialect, layered: Path
) -> None:
    openai_only.reply("", [
        call("r1", "read_file", path="sub/x.py"),
        call("r2", "read_file", path="sub/x.py"),
        call("e1", "write_file", path="sub/deep/y.py", content="y = 3\n"),
        call("r3", "read_file", path="other/z.py"),
        call("r4", "read_file", path="app.py"),
    ])
    openai_only.reply("Done.")
    session, recorder = session_in(openai_only, layered)
    await session.prompt("look around")
    await session.aclose()

    system = openai_only.system(1)
    assert "ROOT RULES" in system and "SUB RULES" not in system and "DEEP RULES" not in system
    results = openai_only.tool_results(2)
    assert "SUB RULES" in results["r1"] and "x = 1" in results["r1"]
    assert "RULES" not in results["r2"], "once"
    assert "DEEP RULES (from CLAUDE.md)" in results["e1"] and "SUB RULES" not in results["e1"]
    assert "OTHER AGENTS RULES" in results["r3"] and "OTHER CLAUDE RULES" not in results["r3"]
    assert "RULES" not in results["r4"], "the root's are in the system prompt already"
    notices = [event.message for event in recorder.of(Notice) if "joins the context" in event.message]
    assert notices == [
        "sub/AGENTS.md joins the context (10 bytes): the instructions of sub/",
        "sub/deep/CLAUDE.md joins the context (28 bytes): the instructions of sub/deep/",
        "other/AGENTS.md joins the context (19 bytes): the instructions of other/",
    ]


async def test_claude_md_is_read_where_there_is_no_agents_md_and_imports_stay_inside(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    (tmp_path / "outside.md").write_text("OUTSIDE SECRET\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "style.md").write_text("STYLE GUIDE\n@more.md\n")
    (workspace / "docs" / "more.md").write_text("MORE STYLE\n@style.md\n")  # a cycle
    (workspace / "docs" / "link.md").symlink_to(tmp_path / "outside.md")
    (workspace / "CLAUDE.md").write_text(
        "CLAUDE RULES\n@docs/style.md\n@../outside.md\n@" + str(tmp_path / "outside.md")
        + "\n@~/outside.md\n@docs/link.md\nsend mail to @someone please\n"
    )
    user = config_dir()
    user.mkdir(parents=True)
    (user / "AGENTS.md").write_text("USER RULES\n@personal.md\n")
    (user / "personal.md").write_text("PERSONAL TASTE\n")
    openai_only.reply("Hi.")
    session, _ = session_in(openai_only, workspace)
    await session.prompt("hello")
    report = await run_command(session, "memory")
    await session.aclose()

    system = openai_only.system(1)
    for text in ("CLAUDE RULES", "STYLE GUIDE", "MORE STYLE", "[style.md is already loaded]",
                 "USER RULES", "PERSONAL TASTE", "send mail to @someone please"):
        assert text in system
    assert "OUTSIDE SECRET" not in system
    assert system.count("[not imported:") == 4
    lines = report.text.splitlines()
    assert lines[0].startswith("instruction files the model reads")
    [mine] = [line.split() for line in lines if line.split()[:2] == ["1", "user"]]
    assert str(user / "AGENTS.md").endswith(mine[2].removeprefix("…"))  # a long path's start cut
    assert any(line.split()[1:3] == ["project", "CLAUDE.md"] for line in lines)
    assert any(line.split()[1:3] == ["import", "docs/style.md"] and line.endswith("21 bytes") for line in lines)
    imported = [line.split() for line in lines if line.split()[1:2] == ["import"]]
    assert any(str(user / "personal.md").endswith(words[2].removeprefix("…")) for words in imported)
    assert lines[-1] == "/memory N opens one in your $EDITOR"


async def test_memory_opens_one_and_the_model_reads_it_as_edited_from_the_next_request(
    openai_only: Dialect, layered: Path
) -> None:
    openai_only.reply("", [call("r1", "read_file", path="sub/x.py")])
    openai_only.reply("Read.")
    openai_only.reply("The user looked at sub/x.py.")  # the compaction's summary
    openai_only.reply("Still here.")
    session, _ = session_in(openai_only, layered)
    await session.prompt("read x")
    listed = (await run_command(session, "memory")).text
    assert "folder   sub/AGENTS.md" in listed
    opened = await run_command(session, "memory", "1")
    assert opened.edit == layered / "AGENTS.md" and str(layered / "AGENTS.md") in opened.text
    (layered / "AGENTS.md").write_text("ROOT RULES, EDITED\n")  # what the editor did
    bad = await run_command(session, "memory", "9")
    assert bad.level == "warning" and "1 to 2" in bad.text

    assert await session.compact()
    await session.prompt("and now?")
    await session.aclose()
    system = openai_only.system(4)
    assert "ROOT RULES, EDITED" in system
    assert "SUB RULES" in system, "the compaction did not take the folder's instructions away"
    assert "The user looked at sub/x.py." in json.dumps(openai_only.request(4)["messages"])


async def test_a_cleared_conversation_gets_a_folders_instructions_again_with_the_next_read(
    openai_only: Dialect, layered: Path
) -> None:
    openai_only.reply("", [call("r1", "read_file", path="sub/x.py")])
    openai_only.reply("Read.")
    openai_only.reply("", [call("r2", "read_file", path="sub/x.py")])
    openai_only.reply("Read again.")
    session, _ = session_in(openai_only, layered)
    await session.prompt("read x")
    session.clear()
    await session.prompt("read x again")
    await session.aclose()
    assert "SUB RULES" in openai_only.tool_results(2)["r1"]
    assert "SUB RULES" in openai_only.tool_results(4)["r2"], "the fresh conversation had not seen them"


async def test_memory_lists_one_file_a_row_at_80_columns_however_deep_its_folder(
    openai_only: Dialect, workspace: Path
) -> None:
    deep = workspace / "packages" / "storefront-web" / "src" / "components" / "checkout" / "validation"
    deep.mkdir(parents=True)
    (workspace / "AGENTS.md").write_text("ROOT RULES\n")
    (deep / "AGENTS.md").write_text("VALIDATION RULES\n" * 80)
    (deep / "rules.ts").write_text("export {}\n")
    openai_only.reply("", [call("r1", "read_file", path=str((deep / "rules.ts").relative_to(workspace)))])
    openai_only.reply("Read.")
    session, _ = session_in(openai_only, workspace)
    await session.prompt("read the rules")

    rows = (await run_command(session, "memory")).text.splitlines()
    [root, folder] = [row for row in rows if row.endswith(" bytes")]
    assert root.startswith("   1  project  AGENTS.md ") and root.endswith("    11 bytes")
    assert folder.startswith("   2  folder   …") and folder.endswith("/checkout/validation/AGENTS.md    1,360 bytes")
    assert all(len(row) <= 76 for row in rows[1:]), "a row fits 80 columns beside the notice's mark"
    await session.aclose()
