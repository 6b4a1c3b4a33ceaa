"""What a scripted start costs: CPU to the first request of ``neocode -p``, and to ``neocode acp``'s
``initialize`` answer, each against the least a Python program doing the same costs.

    .venv/bin/python bench/bench_headless_start.py            # 9 runs of each, interleaved
    .venv/bin/python bench/bench_headless_start.py --runs 15

Scripts, editors and benchmark harnesses start NeoCode hundreds of times, so what counts is
the CPU a start burns before it does its job. Every run is a fresh process in an empty folder
with fresh data and config folders; its CPU is read from the kernel (``/proc/PID/task/*/
schedstat``, nanoseconds on CPU of every thread) at the moment the job is done:

- **-p**: ``neocode -p hi``, read when the loopback model server here receives the request;
- **-p base**: ``python -c "import httpx; httpx.post(...)"``, the same request from a bare
  httpx client: the floor for a Python program that talks HTTP;
- **acp**: ``neocode acp`` sent ``initialize`` on stdin, read when its answer line arrives;
- **acp base**: the ACP SDK's own minimal agent (``acp.run_agent``) answering the same;
- **--version**, **--help**: the whole command, to its exit (the kernel's count for the
  ended child), beside ``python -c pass``, the interpreter's own start.

Goal: each of ours at most 250 ms of CPU (the ratio says how far from the floor it is).
Contenders take turns, so noise on a shared machine hits them alike; medians are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_mcp_startup import medians  # noqa: E402  (this folder is the script's first path)

from tests.support.model_server import ModelServer, Response  # noqa: E402
from tests.support.sse import openai_turn  # noqa: E402

NEOCODE = str(Path(sys.executable).parent / "neocode")
GOAL_S = 0.25
TIMEOUT = 60.0

HTTPX_CLIENT = """
import sys, httpx
httpx.post(sys.argv[1] + "/v1/chat/completions", headers={"authorization": "Bearer sk-bench"},
           json={"model": "bench", "stream": True, "messages": [{"role": "user", "content": "hi"}]})
"""
"""The floor for ``-p``: a bare httpx client sending one streamed chat request."""

SDK_AGENT = """
import asyncio
from acp import InitializeResponse, run_agent

class Minimal:
    async def initialize(self, protocol_version, client_capabilities=None, **_):
        return InitializeResponse(protocol_version=protocol_version)
    def on_connect(self, conn):
        pass

asyncio.run(run_agent(Minimal()))
"""
"""The floor for ``acp``: the SDK's smallest agent, answering ``initialize`` and nothing else."""

INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                         "params": {"protocolVersion": 1, "clientCapabilities": {}}}) + "\n"


def cpu_seconds(pid: int) -> float:
    """Time on CPU of every thread of ``pid`` so far, as the scheduler counts it."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that ended between the listing and the read
    return total / 1e9


@contextmanager
def scratch() -> Iterator[tuple[str, dict[str, str]]]:
    """An empty working folder and the environment of a first run: no keys, fresh folders."""
    root = tempfile.mkdtemp(prefix="bench-headless-")
    try:
        folders = {name: os.path.join(root, name) for name in ("work", "data", "config")}
        for folder in folders.values():
            os.mkdir(folder)
        # PYTHONDONTWRITEBYTECODE left out: an install has its modules compiled, and a
        # checkout gets them compiled by the first run instead of compiling on every one.
        env = {key: value for key, value in os.environ.items()
               if not key.startswith("NEOCODE_") and "API_KEY" not in key
               and key != "PYTHONDONTWRITEBYTECODE"}
        env.update(NEOCODE_DATA_DIR=folders["data"], NEOCODE_CONFIG_DIR=folders["config"])
        yield folders["work"], env
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def to_first_request(model: ModelServer, argv: list[str]) -> float:
    """CPU seconds of ``argv``'s process when the model server receives its first request."""
    read: list[float] = []
    pid: list[int] = []

    def answer(_payload: Any) -> Response:
        read.append(cpu_seconds(pid[0]))
        return Response(body=openai_turn("ok"))

    model.enqueue(answer)
    with scratch() as (work, env):
        env.update(NEOCODE_PROVIDER="openai", NEOCODE_BASE_URL=model.url + "/v1", NEOCODE_MODEL="bench",
                   NEOCODE_MAX_RETRIES="0", OPENAI_API_KEY="sk-bench")
        child = await asyncio.create_subprocess_exec(
            *argv, cwd=work, env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        pid.append(child.pid)
        _, err = await asyncio.wait_for(child.communicate(), TIMEOUT)
    if child.returncode != 0 or not read:
        raise RuntimeError(f"{argv} exited {child.returncode} without a request: {err.decode()[-2000:]}")
    model.requests.clear()
    return read[0]


def to_exit(argv: list[str]) -> float:
    """CPU seconds ``argv`` spent from its start to its exit, all its threads (the runs
    take turns, so the only child ended meanwhile is this one)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with scratch() as (work, env):
        subprocess.run(argv, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True, timeout=TIMEOUT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


async def to_initialize(argv: list[str]) -> float:
    """CPU seconds of ``argv``'s process when its answer to ``initialize`` arrives on stdout."""
    with scratch() as (work, env):
        child = await asyncio.create_subprocess_exec(
            *argv, cwd=work, env=env, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(INITIALIZE.encode())
        await child.stdin.drain()
        line = await asyncio.wait_for(child.stdout.readline(), TIMEOUT)
        spent = cpu_seconds(child.pid)
        child.stdin.close()
        await asyncio.wait_for(child.wait(), TIMEOUT)
    if b'"result"' not in line:
        raise RuntimeError(f"{argv} did not answer initialize: {line[:500]!r}")
    return spent


async def exited(argv: list[str]) -> float:
    return await asyncio.to_thread(to_exit, argv)


def line(what: str, ours: float, base: float, floor: str) -> str:
    verdict = "within" if ours <= GOAL_S else "over"
    return (f"{what:<28}{ours * 1e3:6.0f} ms CPU  {floor} {base * 1e3:5.0f} ms  ratio {ours / base:4.2f}x  "
            f"goal {GOAL_S * 1e3:.0f} ms: {verdict}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9, help="runs of each (the median is kept)")
    args = parser.parse_args()
    async with ModelServer() as model:
        spent = await medians(args.runs, {
            "-p": lambda: to_first_request(model, [NEOCODE, "-p", "hi"]),
            "-p base": lambda: to_first_request(model, [sys.executable, "-c", HTTPX_CLIENT, model.url]),
            "acp": lambda: to_initialize([NEOCODE, "acp"]),
            "acp base": lambda: to_initialize([sys.executable, "-c", SDK_AGENT]),
            "--version": lambda: exited([NEOCODE, "--version"]),
            "--help": lambda: exited([NEOCODE, "--help"]),
            "pass": lambda: exited([sys.executable, "-c", "pass"]),
        })
    print(f"bench_headless_start: CPU of a fresh process until its job is done, median of {args.runs} runs")
    print(line("neocode -p, first request", spent["-p"], spent["-p base"], "bare httpx"))
    print(line("neocode acp, initialize", spent["acp"], spent["acp base"], "SDK agent"))
    print(line("neocode --version, to exit", spent["--version"], spent["pass"], "python -c pass"))
    print(line("neocode --help, to exit", spent["--help"], spent["pass"], "python -c pass"))


if __name__ == "__main__":
    asyncio.run(main())
