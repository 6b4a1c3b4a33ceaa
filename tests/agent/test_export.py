"""``/export [FILE]``: the conversation in a Markdown file, never over an existing file."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.agent.commands.table import Report, run_command
from tests.support.dialects import Dialect
from tests.support.sessions import make_session


async def test_export_writes_the_conversation_and_never_over_a_file(openai_only: Dialect, workspace: Path) -> None:
    (workspace / "notes.md").write_text("mine\n")
    openai_only.reply("Reading.", [("r1", "bash", json.dumps({"command": "printf '```'"}))])
    openai_only.reply("It prints three backticks.")
    session, _ = make_session(openai_only, workspace, approval="full-auto")
    assert await session.prompt("what does it print?")

    report = await run_command(session, "export", "")
    assert isinstance(report, Report) and report.level == "info", report
    written = workspace / f"neocode-{session.id}.md"
    text = written.read_text()
    assert text.startswith("# what does it print?\n")
    assert "## You\n\nwhat does it print?" in text and "## NeoCode\n\nIt prints three backticks." in text
    assert "Result (ok):\n\n````\n```\n````" in text  # the output cannot close its fence

    refused = await run_command(session, "export", "notes.md")
    assert isinstance(refused, Report) and refused.level == "warning" and "exists" in refused.text
    assert (workspace / "notes.md").read_text() == "mine\n"
    missing = await run_command(session, "export", "no/such/folder/x.md")
    assert isinstance(missing, Report) and missing.level == "warning" and "cannot write" in missing.text
    await session.aclose()
