"""A background command in the real ``neocode`` in tmux (a real pseudo-terminal), at 80x24
and 120x40: the running panel names Ctrl+B, Ctrl+B sends the command away with its panel
still live, the status bar counts it, F2 shows it live and k stops it."""

from __future__ import annotations

import json
import secrets
import shlex
from pathlib import Path

import pytest

from tests.support.dialects import Dialect
from tests.support.headless import NEOCODE
from tests.support.processes import sleepers
from tests.support.tmux import Tmux
from tests.support.waits import wait_until

CTRL_B, F2, ESC, ENTER = b"\x02", b"\x1bOQ", b"\x1b", b"\r"


def send(tmux: Tmux, *keys: bytes | str) -> None:
    data = b"".join(key.encode() if isinstance(key, str) else key for key in keys)
    tmux("send-keys", "-t", "t:app", "-H", *(f"{byte:02x}" for byte in data))


async def shows(tmux: Tmux, *parts: str, gone: tuple[str, ...] = ()) -> str:
    screen = ""

    def now() -> bool:
        nonlocal screen
        screen = tmux.screen("app")
        return all(part in screen for part in parts) and not any(part in screen for part in gone)

    try:
        await wait_until(now, what=f"{parts} on screen")
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{screen}") from None
    return screen


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_ctrl_b_f2_and_k_in_a_real_terminal(
    size: tuple[int, int], openai_only: Dialect, tmp_path: Path, tmux: Tmux
) -> None:
    token = f"37{secrets.randbelow(10**6)}"
    workspace = tmp_path / "project"
    workspace.mkdir()
    openai_only.reply("Starting.", [("c1", "bash", json.dumps({"command": f"echo serving; sleep {token}"}))])
    openai_only.reply("It runs in the background.")
    tmux.window("app", f"cd {shlex.quote(str(workspace))} && {NEOCODE} --approval full-auto")
    tmux("resize-window", "-t", "t:app", "-x", str(size[0]), "-y", str(size[1]))
    tmux.go("app")
    await shows(tmux, "type a task")
    send(tmux, "start the server", ENTER)
    await shows(tmux, "serving", "Ctrl+B sends it to the background")
    await wait_until(lambda: len(sleepers(token)) == 1, what="the sleeper")

    send(tmux, CTRL_B)
    screen = await shows(tmux, "running in the background as b1", "It runs in the background.",
                         "1 command running")
    assert "✓ done" not in screen and "serving" in screen
    assert max(len(line) for line in screen.splitlines()) <= size[0]

    send(tmux, F2)
    await shows(tmux, "Background commands · 1 running", "› b1", "k stop the chosen one")
    send(tmux, "k")
    await shows(tmux, "Background commands · 0 running", "stopped by the user")
    assert sleepers(token) == []
    send(tmux, ESC)
    await shows(tmux, "b1 stopped by the user", gone=("command running", "Background commands"))
