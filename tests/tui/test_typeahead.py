"""Keys typed while ``neocode`` starts are not lost: in a real pseudo-terminal, text typed
before the first frame ends up in the input."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

from tests.helpers import first_run

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
        deadline = time.monotonic() + 30
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
