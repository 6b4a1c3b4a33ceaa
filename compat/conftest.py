"""Real model servers for the compatibility suite, and the real ``neocode`` run against them.

``compat/run.sh`` sets ``NEOCODE_COMPAT_SERVER_PYTHON`` (a venv with llama-cpp-python's
server) and ``NEOCODE_COMPAT_MODEL`` (a GGUF file). Without them every check fails with a
message saying to use the script.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

NEOCODE = str(Path(sys.executable).parent / "neocode")
CONTEXT = 4096
"""Twice the server's default: room for a tool round trip and a continued session, small
enough that a model that never stops ends within a couple of minutes on two cores."""
RESULTS: list[tuple[str, str, str]] = []


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "compat: runs neocode against a real model server "
                                       "(compat/run.sh; never part of plain pytest)")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class LlamaServer:
    """One ``python -m llama_cpp.server`` process on 127.0.0.1."""

    python: str
    model: str
    port: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, log: Path) -> LlamaServer:
        self.process = subprocess.Popen(
            [self.python, "-m", "llama_cpp.server", "--model", self.model, "--host", "127.0.0.1",
             "--port", str(self.port), "--n_ctx", str(CONTEXT)],
            stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the llama.cpp server exited: see {log}")
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=2):
                    return self
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"the llama.cpp server did not answer within 120 s: see {log}")

    def kill(self) -> None:
        """SIGKILL, the way a crash or the OOM killer ends it."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def _server_settings() -> tuple[str, str]:
    python = os.environ.get("NEOCODE_COMPAT_SERVER_PYTHON")
    model = os.environ.get("NEOCODE_COMPAT_MODEL")
    if not python or not model:
        pytest.fail("run the compatibility suite with compat/run.sh (it builds the server venv "
                    "and finds the model)", pytrace=False)
    return python, model


@pytest.fixture(scope="session")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("server-logs")


@pytest.fixture(scope="session")
def llama(logs: Path) -> Iterator[LlamaServer]:
    """The shared server (one model load for the whole suite)."""
    python, model = _server_settings()
    server = LlamaServer(python, model, _free_port()).start(logs / "llama.log")
    yield server
    server.stop()


@pytest.fixture
def spare_llama(logs: Path) -> Iterator[LlamaServer]:
    """A server of its own, for a check that kills it."""
    python, model = _server_settings()
    server = LlamaServer(python, model, _free_port()).start(logs / "spare.log")
    yield server
    server.stop()


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> dict:
        return json.loads(self.out)

    def lines(self) -> list[dict]:
        return [json.loads(line) for line in self.out.splitlines() if line.strip()]


class Neocode:
    """``neocode`` as a user runs it, in a workspace of its own, pointed at ``url``."""

    def __init__(self, root: Path, url: str) -> None:
        self.workspace = root / "ws"
        self.workspace.mkdir(exist_ok=True)
        self.url = url
        self.env = {k: v for k, v in os.environ.items()
                    if not k.endswith("_API_KEY") and not k.startswith("NEOCODE_")}
        self.env.update(NEOCODE_PROVIDER="openai", NEOCODE_BASE_URL=url, OPENAI_API_KEY="x",
                        NEOCODE_MODEL="smollm2", NEOCODE_DATA_DIR=str(root / "data"),
                        XDG_CONFIG_HOME=str(root / "config"))

    def popen(self, *args: str, **env: str) -> subprocess.Popen[str]:
        return subprocess.Popen([NEOCODE, *args], cwd=self.workspace, env={**self.env, **env},
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def __call__(self, *args: str, timeout: float = 300, **env: str) -> Run:
        process = self.popen(*args, **env)
        out, err = process.communicate(timeout=timeout)
        return Run(process.returncode, out, err)


@pytest.fixture
def neocode(tmp_path: Path, llama: LlamaServer) -> Neocode:
    return Neocode(tmp_path, llama.url)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" or (report.when == "setup" and report.failed):
        what = (item.function.__doc__ or item.name).strip().splitlines()[0]  # type: ignore[attr-defined]
        callspec = getattr(item, "callspec", None)
        if callspec is not None:
            what += f" [{callspec.id}]"
        options = getattr(item.function, "compat_options", "")  # type: ignore[attr-defined]
        RESULTS.append((what, report.outcome, options))


def pytest_terminal_summary(terminalreporter) -> None:
    if not RESULTS:
        return
    write = terminalreporter.write_line
    write("")
    write(f"| {'server: ' + os.environ.get('NEOCODE_COMPAT_VERSION', 'llama-cpp-python'):<60} "
          f"| result | options needed |")
    write(f"|{'-' * 62}|--------|----------------|")
    for what, result, options in RESULTS:
        write(f"| {what:<60} | {result:<6} | {options or '-'} |")
