"""Real model servers for the compatibility suite, and the real ``neocode`` run against them.

``compat/run.sh`` sets ``NEOCODE_COMPAT_SERVER_PYTHON`` (a venv with llama-cpp-python's
server), ``NEOCODE_COMPAT_MODEL`` (a GGUF file), ``NEOCODE_COMPAT_SERVERS`` (which endpoints
each check runs against: ``llama-cpp`` direct, ``litellm`` as a proxy in front of it,
``litellm-anthropic`` the same proxy's Anthropic ``/v1/messages``) and ``NEOCODE_COMPAT_LITELLM``.
A check runs against ``litellm-anthropic`` only when marked ``@pytest.mark.anthropic``: the
others test what only the OpenAI dialect has. Without them every check fails with a message saying to use the
script.
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
RESULTS: dict[str, dict[str, str]] = {}
"""check -> endpoint -> outcome, for the table at the end."""
LITELLM_KEY = "sk-compat-local"
THINKING_MODEL = "claude-sonnet-4-5"
"""A name under which LiteLLM serves the same small model: neocode sends a thinking budget
only to models known to take one."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "compat: runs neocode against a real model server "
                                       "(compat/run.sh; never part of plain pytest)")
    config.addinivalue_line("markers", "anthropic(only=False): also (only) runs through "
                                       "LiteLLM's /v1/messages with NEOCODE_PROVIDER=anthropic")


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
class Endpoint:
    """Where ``neocode`` sends its requests, the key it sends, and in which dialect."""

    name: str
    url: str
    api_key: str
    provider: str = "openai"


def _servers() -> list[str]:
    return [name for name in os.environ.get("NEOCODE_COMPAT_SERVERS", "llama-cpp").split(",") if name]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "endpoint" in metafunc.fixturenames:
        marker = metafunc.definition.get_closest_marker("anthropic")
        only = marker is not None and marker.kwargs.get("only", False)
        servers = [name for name in _servers()
                   if (name == "litellm-anthropic") == only or (marker and not only)]
        metafunc.parametrize("endpoint", servers, indirect=True, scope="session")


@pytest.fixture(scope="session")
def litellm(llama: LlamaServer, logs: Path) -> Iterator[Endpoint]:
    """LiteLLM's proxy in front of the shared llama.cpp server."""
    command = os.environ.get("NEOCODE_COMPAT_LITELLM")
    if not command:
        pytest.fail("run the compatibility suite with compat/run.sh (it installs LiteLLM)",
                    pytrace=False)
    config = logs / "litellm.yaml"
    models = "".join(f"  - model_name: {name}\n    litellm_params:\n      model: openai/smollm2\n"
                     f"      api_base: {llama.url}\n      api_key: x\n"
                     for name in ("smollm2", THINKING_MODEL))
    # Without the setting LiteLLM answers /v1/messages for an OpenAI-compatible backend
    # through the Responses API, which llama.cpp's server does not have.
    config.write_text(f"model_list:\n{models}litellm_settings:\n"
                      "  use_chat_completions_url_for_anthropic_messages: true\n")
    port = _free_port()
    env = {**os.environ, "LITELLM_MASTER_KEY": LITELLM_KEY, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    process = subprocess.Popen([command, "--config", str(config), "--host", "127.0.0.1",
                                "--port", str(port)], env=env, cwd=logs,
                               stdout=(logs / "litellm.log").open("ab"), stderr=subprocess.STDOUT,
                               start_new_session=True)
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/liveliness", timeout=2):
                break
        except OSError as exc:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"LiteLLM's proxy did not start: see {logs / 'litellm.log'}") from exc
            time.sleep(0.5)
    yield Endpoint("litellm", f"http://127.0.0.1:{port}/v1", LITELLM_KEY)
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(10)


@pytest.fixture(scope="session")
def endpoint(request: pytest.FixtureRequest, llama: LlamaServer) -> Endpoint:
    if request.param == "litellm":
        return request.getfixturevalue("litellm")
    if request.param == "litellm-anthropic":  # the Anthropic SDK's base URL has no /v1
        proxy: Endpoint = request.getfixturevalue("litellm")
        return Endpoint(request.param, proxy.url.removesuffix("/v1"), proxy.api_key, "anthropic")
    return Endpoint("llama-cpp", llama.url, "x")


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

    def __init__(self, root: Path, url: str, api_key: str = "x", provider: str = "openai") -> None:
        self.workspace = root / "ws"
        self.workspace.mkdir(exist_ok=True)
        self.url = url
        self.env = {k: v for k, v in os.environ.items()
                    if not k.endswith("_API_KEY") and not k.startswith("NEOCODE_")}
        self.env.update({f"{provider.upper()}_API_KEY": api_key})
        if provider == "anthropic":  # the messages' breakpoints make them block lists
            self.env.update(NEOCODE_CACHE_CONTROL="false")
        self.env.update(NEOCODE_PROVIDER=provider, NEOCODE_BASE_URL=url,
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
def neocode(tmp_path: Path, endpoint: Endpoint) -> Neocode:
    return Neocode(tmp_path, endpoint.url, endpoint.api_key, endpoint.provider)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" or (report.when == "setup" and report.failed):
        what = (item.function.__doc__ or item.name).strip().splitlines()[0]  # type: ignore[attr-defined]
        callspec = getattr(item, "callspec", None)
        server = callspec.params.get("endpoint", "llama-cpp") if callspec else "llama-cpp"
        variant = (callspec.id if callspec else "").replace(server, "", 1).strip("-")
        if variant:
            what += f" [{variant}]"
        options = getattr(item.function, "compat_options", "")  # type: ignore[attr-defined]
        RESULTS.setdefault(what, {})[server] = report.outcome + (f" ({options})" if options else "")


def pytest_terminal_summary(terminalreporter) -> None:
    if not RESULTS:
        return
    litellm = os.environ.get("NEOCODE_COMPAT_LITELLM_VERSION", "litellm")
    versions = {"llama-cpp": os.environ.get("NEOCODE_COMPAT_VERSION", "llama-cpp-python"),
                "litellm": f"{litellm} in front of it",
                "litellm-anthropic": f"{litellm} /v1/messages, NEOCODE_PROVIDER=anthropic"}
    servers = [name for name in _servers() if any(name in row for row in RESULTS.values())]
    write = terminalreporter.write_line
    write("")
    write("| check | " + " | ".join(versions.get(name, name) for name in servers) + " |")
    write("|---|" + "---|" * len(servers))
    for what, row in RESULTS.items():
        write(f"| {what} | " + " | ".join(row.get(name, "n/a") for name in servers) + " |")
