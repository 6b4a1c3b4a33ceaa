"""Keys typed while ``neocode`` starts are not lost: in a real pseudo-terminal, text typed
before the first frame ends up in the input; in tmux, keys typed at the first frame, while
the session is still being built, keep their order and Enter sends what was typed."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shlex
import signal
import struct
import sys
import termios
import time
from pathlib import Path

from tests.support.first_run import first_run
from tests.support.tmux import Tmux
from tests.support.waits import PATIENCE, wait_until

ALTERNATE_SCREEN = b"\x1b[?1049h"
"""Where the app's own screen begins in what the terminal is sent."""


def test_text_typed_while_the_app_starts_lands_in_the_input(tmp_path: Path) -> None:
    workspace, env = first_run(tmp_path)
    env.update(TERM="xterm-256color")
    pid, master = pty.fork()
    if pid == 0:  # the child: a 100x30 terminal, then neocode
        fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        os.chdir(workspace)
        os.execve(sys.executable, [sys.executable, "-m", "neocode_tui"], env)
    try:
        os.write(master, b"typed ahead")  # before the app has drawn anything
        output = b""
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    output += os.read(master, 65536)
                except OSError:
                    break
            # The terminal echoes what is typed before the app takes it over; only what the
            # app draws on its own screen (after switching to it) counts.
            drawn = output.partition(ALTERNATE_SCREEN)[2]
            if b"No API key" in drawn and b"typed ahead" in drawn:
                break
        assert b"No API key" in drawn, output[-3000:]
        assert b"typed ahead" in drawn, drawn[-3000:]
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(master)


async def test_keys_typed_at_the_first_frame_keep_their_order_and_enter_sends(tmp_path: Path) -> None:
    workspace, env = first_run(tmp_path)
    env.update(TERM="xterm-256color")
    tmux = Tmux(tmp_path / "tmux.socket", env)
    screen = ""

    async def shows(text: str, what: str) -> None:
        def shown() -> bool:
            nonlocal screen
            screen = tmux.screen("app")
            return text in screen

        try:
            await wait_until(shown, what=what)
        except AssertionError as timed_out:
            raise AssertionError(f"{timed_out}; the screen shows:\n{screen}") from None

    try:
        tmux.window("app", f"cd {shlex.quote(str(workspace))} && {shlex.quote(sys.executable)} -m neocode_tui")
        tmux.go("app")
        await shows("type a task and press Enter", "the first frame")
        # "/" may need the session (the command list): it and what follows it wait for it.
        tmux("send-keys", "-t", "t:app", "-l", "hello /world")
        await shows("│ hello /world", "what was typed, in order, in the input")
        tmux("send-keys", "-t", "t:app", "Enter")
        await shows("You asked: hello /world", "the offline model's answer")
    finally:
        if tmux.socket.exists():
            tmux("kill-server")
