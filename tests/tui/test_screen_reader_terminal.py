"""``neocode --screen-reader`` in a real terminal (tmux), read the way a screen reader reads
it: what the program appends to the terminal, line by line. Each message and tool call is
said once, as it completes, with no box drawing, no escape sequence (no redraw, no cursor
move) and questions naming their keys in words."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from tests.support.dialects import Dialect
from tests.support.headless import NEOCODE
from tests.support.tmux import Tmux
from tests.support.waits import wait_until

BOX_DRAWING = {chr(code) for code in range(0x2500, 0x2580)}
SPINNERS = set("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏●◐◓◑◒")


def appended(log: Path) -> list[str]:
    return log.read_bytes().decode(errors="replace").replace("\r\n", "\n").split("\n") if log.exists() else []


async def test_the_conversation_is_appended_line_by_line_each_part_said_once(
    openai_only: Dialect, tmp_path: Path, tmux: Tmux
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    openai_only.reply("I will count the lines.",
                      [("c1", "bash", json.dumps({"command": "printf 'one\\ntwo\\nthree\\n'"}))])
    openai_only.reply("There are three lines.")
    log = tmp_path / "written.log"
    command = f"cd {shlex.quote(str(workspace))} && {NEOCODE} --screen-reader --approval ask --sandbox off"
    tmux.window("reader", command, size=(80, 24))
    tmux("pipe-pane", "-t", "t:reader", "-o", f"cat >> {shlex.quote(str(log))}")
    tmux.go("reader")

    def said(line: str) -> bool:
        return any(line in each for each in appended(log))

    await wait_until(lambda: said("Your message:"), what="the first question")
    tmux("send-keys", "-t", "t:reader", "-l", "count the lines")
    tmux("send-keys", "-t", "t:reader", "Enter")
    await wait_until(lambda: said("Press y for yes, n for no"), what="the approval, in words")
    tmux("send-keys", "-t", "t:reader", "y", "Enter")
    await wait_until(lambda: said("Assistant: There are three lines."), what="the answer")
    await wait_until(lambda: appended(log).count("Your message:") == 2, what="the next prompt")
    tmux("send-keys", "-t", "t:reader", "?", "Enter")
    await wait_until(lambda: said("Status: model test-model, mode ask"), what="the status, on demand")

    output = log.read_bytes().decode(errors="replace")
    assert "\x1b" not in output and "\r" not in output.replace("\r\n", "")  # nothing drawn over
    assert not (set(output) & (BOX_DRAWING | SPINNERS))
    lines = [line for line in appended(log) if line]
    question = next(line for line in lines if line.startswith("Question:"))
    assert question.startswith("Question: allow bash: printf")
    tool = next(line for line in lines if line.startswith("Tool "))
    assert tool.startswith("Tool printf") and tool.endswith(": done, 3 lines")
    assert lines[lines.index("count the lines"):] == [
        "count the lines",                      # what the terminal echoed of the typing
        "Assistant: I will count the lines.",
        question,
        "y",
        tool,
        "Assistant: There are three lines.",
        "Your message:",
        "?",
        lines[-1],
    ]
    assert lines[-1].startswith("Status: model test-model, mode ask, context ")
    for each in ("Assistant: I will count the lines.", "Assistant: There are three lines.", tool):
        assert lines.count(each) == 1
