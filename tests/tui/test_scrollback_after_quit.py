"""Once the app is quit, the terminal's scrollback keeps the conversation, as Claude Code
leaves its own: the prompt, the answer rendered (no raw Markdown), the tool call with one
line of its result, and the line saying how to continue last. The real ``neocode`` in tmux at
80x24 and 120x40, read from tmux's history; a control sequence the model wrote is shown as
text, never obeyed; ``exit_transcript = false`` leaves only the exit line."""

from __future__ import annotations

import json
import shlex

import pytest

from tests.support.dialects import Dialect
from tests.support.headless import NEOCODE
from tests.support.long_session import long_session
from tests.support.tmux import Tmux
from tests.support.waits import wait_until

ANSWER = "## Plan\n\n- **count** to thirty\n- then `stop`\n\nTitle \x1b]2;pwned\x07 kept\x1b[2J."
EXIT = "continue it with: neocode --continue"


async def quit_after_one_turn(openai_only: Dialect, tmux: Tmux, size: tuple[int, int], env: str = "") -> str:
    """The app's history after a turn that ran a command, and ``/exit``."""
    workspace = tmux.socket.parent / "project"
    workspace.mkdir()
    openai_only.reply(ANSWER, [("c1", "bash", json.dumps({"command": "seq 1 30"}))])
    openai_only.reply("Counted to **thirty**.")
    tmux.window("app", f"cd {shlex.quote(str(workspace))} && {env} {NEOCODE} --approval full-auto", size=size)
    tmux.go("app")
    await wait_until(lambda: "type a task" in tmux.screen("app"), what="the app's first screen")
    tmux("send-keys", "-t", "t:app", "-l", "count to thirty")
    tmux("send-keys", "-t", "t:app", "Enter")
    await wait_until(lambda: "Counted to" in tmux.screen("app"), what="the answer")
    tmux("send-keys", "-t", "t:app", "-l", "/exit")
    tmux("send-keys", "-t", "t:app", "Enter")
    await wait_until(lambda: EXIT in tmux.scrollback("app"), what="the exit line")
    return tmux.scrollback("app")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_the_conversation_stays_in_the_scrollback_with_the_resume_line_last(
    openai_only: Dialect, tmux: Tmux, size: tuple[int, int]
) -> None:
    left = await quit_after_one_turn(openai_only, tmux, size)

    lines = [line.rstrip() for line in left.splitlines() if line.strip()]
    assert EXIT in lines[-1]
    order = ["› count to thirty", "Plan", "• count to thirty", "● bash  seq 1 30", "⎿ 1  (+29 lines)",
             "Counted to thirty."]
    at = [next(i for i, line in enumerate(lines) if part in line) for part in order]
    assert at == sorted(at), lines
    assert "## Plan" not in left and "**" not in left  # rendered, not raw Markdown
    assert "␛]2;pwned␇ kept␛[2J." in left  # shown as text, not obeyed
    assert tmux.title("app") != "pwned"
    assert max(len(line) for line in lines[:-1]) <= size[0]  # laid out for the terminal


async def test_exit_transcript_false_leaves_only_the_exit_line(openai_only: Dialect, tmux: Tmux) -> None:
    left = await quit_after_one_turn(openai_only, tmux, (80, 24), env="NEOCODE_EXIT_TRANSCRIPT=false")

    assert EXIT in left
    assert "Counted to" not in left and "count to thirty" not in left


async def test_a_very_long_session_leaves_its_latest_part_and_says_so(openai_only: Dialect, tmux: Tmux) -> None:
    workspace = tmux.socket.parent / "project"
    workspace.mkdir()
    long_session(workspace)
    tmux.window("app", f"cd {shlex.quote(str(workspace))} && {NEOCODE} --continue", size=(120, 40))
    tmux.go("app")
    await wait_until(lambda: "resumed session" in tmux.screen("app"), what="the resumed session")
    tmux("send-keys", "-t", "t:app", "-l", "/exit")
    tmux("send-keys", "-t", "t:app", "Enter")
    await wait_until(lambda: EXIT in tmux.scrollback("app"), what="the exit line")

    lines = [line for line in tmux.scrollback("app").splitlines() if line.strip()]
    assert lines[0].startswith("… ") and "earlier entries are not shown here; --continue brings" in lines[0]
    assert "● read_file  read step_499.py" in "\n".join(lines) and "answer 499: it reloads." in "\n".join(lines)
    assert not any("question 0:" in line for line in lines)
    assert len(lines) < 1000 and EXIT in lines[-1]
