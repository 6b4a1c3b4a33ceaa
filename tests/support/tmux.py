"""A real terminal for the app: a tmux server of the test's own."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

from tests.support.waits import PATIENCE


class Tmux:
    """A tmux server of the test's own (its own socket, no user config), ended with the test."""

    def __init__(self, socket: Path, env: dict[str, str]) -> None:
        self.socket = socket
        self.env = env

    def __call__(self, *args: str) -> str:
        run = subprocess.run(["tmux", "-S", str(self.socket), "-f", "/dev/null", *args], env=self.env,
                             capture_output=True, text=True, timeout=PATIENCE)
        assert run.returncode == 0 or args[0] == "show-buffer", run.stderr
        return run.stdout

    def window(self, name: str, command: str, size: tuple[int, int] = (120, 50)) -> None:
        """A window of ``size`` (columns, rows) that runs ``command`` once ``go`` lets it."""
        waiting = f"sh -c {shlex.quote(f'read go; {command}; exec cat')}"
        columns, rows = str(size[0]), str(size[1])
        if not self.socket.exists():
            self("new-session", "-d", "-s", "t", "-n", name, "-x", columns, "-y", rows, waiting)
            self("set-option", "-g", "set-clipboard", "on")  # honour OSC 52 from programs
        else:
            self("new-window", "-d", "-t", "t", "-n", name, waiting)
            self("resize-window", "-t", f"t:{name}", "-x", columns, "-y", rows)
        self("select-pane", "-t", f"t:{name}", "-T", "before")

    def go(self, name: str) -> None:
        self("send-keys", "-t", f"t:{name}", "Enter")

    def title(self, name: str) -> str:
        return self("display-message", "-p", "-t", f"t:{name}", "#{pane_title}").strip()

    def screen(self, name: str) -> str:
        return self("capture-pane", "-p", "-t", f"t:{name}")

    def scrollback(self, name: str) -> str:
        """The normal screen's history and what it shows now (not an alternate screen's),
        a line the terminal wrapped joined again."""
        return self("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", f"t:{name}")

    def buffers(self) -> str:
        return self("list-buffers")
