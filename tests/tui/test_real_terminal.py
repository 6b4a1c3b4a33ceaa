"""The real ``neocode`` in a real terminal (tmux): a model's answer and a command's output
full of escape sequences neither retitle the window, nor set the clipboard, nor clear the
screen; the user reads them escaped."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from tests.support.dialects import Dialect
from tests.support.headless import NEOCODE
from tests.support.terminal import HOSTILE, HOSTILE_LINES, PIECES, foreign_controls_on_a_terminal
from tests.support.tmux import Tmux
from tests.support.waits import wait_until

PROOF = r"printf '\033]0;proof\007\033]52;c;cHJvb2Y=\007'"
"""What a program that does retitle the window and set the clipboard prints."""


async def test_neocode_in_tmux_neither_retitles_nor_sets_the_clipboard_nor_clears(
    openai_only: Dialect, tmp_path: Path, tmux: Tmux
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "evil.txt").write_text(HOSTILE_LINES)
    openai_only.reply(f"Answer: {HOSTILE}", [("c1", "bash", json.dumps({"command": "cat evil.txt"}))])
    openai_only.reply("All done.")

    # This terminal does what the sequences ask of it, when a program prints them:
    tmux.window("proof", PROOF)
    tmux.go("proof")
    await wait_until(lambda: tmux.title("proof") == "proof" and "proof" in tmux.buffers(),
                     what="tmux to honour OSC 0 and OSC 52")
    tmux("delete-buffer")

    written = tmp_path / "written.log"
    app = f"cd {shlex.quote(str(workspace))} && {NEOCODE} --approval full-auto 'show evil.txt'"
    tmux.window("app", app)
    tmux("pipe-pane", "-t", "t:app", "-o", f"cat >> {shlex.quote(str(written))}")
    tmux.go("app")
    escaped = ("␛]52;c;cHduZWQ=␇", "␛]0;pwned␇", "␛[2J", "\\x9b2J")
    shown = [""]

    def whole() -> bool:
        """One capture holds the first line drawn, the answer and the command each with
        every escape shown, and the end: one taken while a frame is still being written
        may hold only part of it (and the status bar's clock ticks, so no two need match)."""
        screen = shown[0] = tmux.screen("app")
        parts = ("type a task and press Enter", "Answer:", "$ cat evil.txt", "All done.")
        if not all(part in screen for part in parts):
            return False
        answer, result = screen[screen.index("Answer:") :], screen[screen.index("$ cat evil.txt") :]
        return all(piece in answer and piece in result for piece in escaped)

    try:
        await wait_until(whole, what="the whole conversation on screen, escaped, never cleared away")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the screen shows:\n{shown[0]}") from None
    assert tmux.title("app") == "before"
    assert tmux.buffers() == ""
    output = written.read_bytes().decode(errors="replace")
    assert [raw for raw, _ in PIECES if raw in output] == []
    assert "\x1b]0;" not in output and "\x1b]52;" not in output and "\x1b[2J" not in output
    assert foreign_controls_on_a_terminal(output.partition("\x1b[?1049h")[2]) == []
