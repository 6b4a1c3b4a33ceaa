"""What was allowed and what was asked before, in the real ``neocode`` in tmux at 80x24 and
120x40: ``/permissions`` lists the yes given for the session and takes it back (the status
bar's count follows), and the next run in the folder reaches the last run's prompt with Up
(its key scrubbed out) and shows Ctrl+R's search over the input."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from tests.support.dialects import Dialect
from tests.support.headless import API_KEY, NEOCODE
from tests.support.tmux import Tmux
from tests.support.waits import wait_until

ESC, CTRL_R = b"\x1b", b"\x12"


class Window:
    def __init__(self, tmux: Tmux, name: str) -> None:
        self.tmux, self.name = tmux, name

    def type(self, text: str = "", enter: bool = False, raw: bytes = b"") -> None:
        if text:
            self.tmux("send-keys", "-t", f"t:{self.name}", "-l", text)
        if raw:
            self.tmux("send-keys", "-t", f"t:{self.name}", "-H", *(f"{byte:02x}" for byte in raw))
        if enter:
            self.tmux("send-keys", "-t", f"t:{self.name}", "Enter")

    async def shows(self, *parts: str, gone: tuple[str, ...] = ()) -> str:
        shown = ""

        def now() -> bool:
            nonlocal shown
            shown = " ".join(self.tmux.screen(self.name).split())
            return all(part in shown for part in parts) and not any(part in shown for part in gone)

        try:
            await wait_until(now, what=f"{parts} on screen, {gone} not")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{self.tmux.screen(self.name)}") from None
        return shown


def start(tmux: Tmux, name: str, workspace: Path, size: tuple[int, int]) -> Window:
    tmux.window(name, f"cd {shlex.quote(str(workspace))} && {NEOCODE}", size=size)
    tmux.go(name)
    return Window(tmux, name)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_grants_and_earlier_prompts_in_a_real_terminal(
    openai_only: Dialect, tmux: Tmux, size: tuple[int, int]
) -> None:
    workspace = tmux.socket.parent / "project"
    workspace.mkdir()
    openai_only.reply("", [("c1", "bash", json.dumps({"command": "echo ready"}))])
    openai_only.reply("Said ready.")
    first = start(tmux, "one", workspace, size)
    await first.shows("type a task")
    first.type(f"say ready, key {API_KEY}", enter=True)
    await first.shows("Allow bash? echo ready", "for this session")
    first.type("a")
    await first.shows("Said ready.", "+1 allowed")
    first.type("/permissions", enter=True)
    await first.shows("Allowed for this session", "1 command echo (and any arguments)")
    first.type("/permissions rm 1", enter=True)
    await first.shows("took back the yes for this session", gone=("+1 allowed",))
    first.type("/exit", enter=True)
    await wait_until(lambda: "continue it with" in tmux.scrollback("one"), what="the first run's end")
    left = tmux.scrollback("one")  # the conversation printed on the way out: the key scrubbed
    assert "› say ready, key [redacted]" in left and API_KEY not in left

    second = start(tmux, "two", workspace, size)
    await second.shows("type a task", "test-model")  # the session is made: its history read
    second.type(raw=b"\x1b[A")  # Up: the last run's last line, /exit
    await second.shows("/exit")
    second.type(raw=b"\x1b[A" * 3)
    await second.shows("say ready, key [redacted]")
    second.type(raw=b"\x03")  # Ctrl+C clears the input
    second.type("ready", raw=CTRL_R)
    await second.shows("search prompts: ready · Ctrl+R older · Enter keep · Esc cancel", "say ready, key")
    second.type(raw=ESC)
    await second.shows(gone=("search prompts",))
    assert API_KEY not in tmux.scrollback("two")
