"""A real ``neocode serve`` in a subprocess, for the serve tests: started on a free port, and
ready once it prints its URL (it prints it only after it listens)."""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from tests.support.waits import PATIENCE

SERVED = re.compile(r"NeoCode is served at (http://\S+)")
ANSI = re.compile(r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|P[^\x1b]*\x1b\\|.)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Neocode:
    """``neocode`` in its own process group (the apps it serves go with it), its output read
    line by line as it comes."""

    process: subprocess.Popen[bytes]
    lines: queue.Queue[str | None] = field(default_factory=queue.Queue)
    output: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self.lines.put(raw.decode("utf-8", "replace"))
        self.lines.put(None)

    def wait_for(self, pattern: re.Pattern[str], timeout: float = PATIENCE) -> re.Match[str]:
        """The first line of output that matches, or an AssertionError with the output so far
        (the process ended, or nothing matched in ``timeout`` seconds)."""
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern.pattern!r}:\n{''.join(self.output)}") from None
            if line is None:
                self.lines.put(None)
                raise AssertionError(f"neocode ended before {pattern.pattern!r}:\n{''.join(self.output)}")
            self.output.append(line)
            if match := pattern.search(line):
                return match

    def stop(self) -> str:
        """Stop it and its apps; everything it printed."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=PATIENCE)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=PATIENCE)
        while (line := self.lines.get(timeout=PATIENCE)) is not None:
            self.output.append(line)
        self.lines.put(None)
        return "".join(self.output)


def neocode(*args: str, cwd: Path, env: dict[str, str] | None = None, umask: int = -1) -> Neocode:
    return Neocode(subprocess.Popen(
        [sys.executable, "-m", "neocode_tui", *args], cwd=cwd, env=env, umask=umask,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True,
    ))


@dataclass
class Served:
    server: Neocode
    url: str
    """What ``neocode serve`` printed: ``http://127.0.0.1:PORT/?token=...``."""

    @property
    def port(self) -> int:
        return int(urlsplit(self.url).port or 0)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def token(self) -> str:
        return parse_qs(urlsplit(self.url).query)["token"][0]


def start_serve(*args: str, cwd: Path, env: dict[str, str] | None = None, umask: int = -1) -> Served:
    """``neocode serve --port FREE ARGS`` once it listens; stop it with ``.server.stop()``."""
    server = neocode("serve", "--port", str(free_port()), *args, cwd=cwd, env=env, umask=umask)
    try:
        return Served(server, server.wait_for(SERVED)[1])
    except BaseException:
        server.stop()
        raise
