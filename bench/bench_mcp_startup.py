"""``neocode -p`` with an MCP server configured, against the same run without one.

    .venv/bin/python bench/bench_mcp_startup.py            # 7 runs of each, interleaved
    .venv/bin/python bench/bench_mcp_startup.py --runs 11

Every run is a fresh ``neocode`` process in an empty folder with fresh data and config
folders, its model a loopback server in this process that answers at once:

- **prompt**: ``neocode -p hi``: the first request waits until the servers are settled, as
  their tools must be in it;
- **command**: ``neocode -p /cost``: a built-in command, which needs no server;
- **mcp**: ``neocode -p /mcp``: the one that reports on them, so it waits.

Each is timed with the reference server ``server-everything`` (from tests/node: ``npm ci
--prefix tests/node``) in the user's ``mcp.json`` and without, and with that server's own
start alone for reference (a client that only connects and lists its tools). Median of the
runs, the contenders taking turns so noise on a shared machine hits them alike.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.model_server import ModelServer, Response  # noqa: E402
from tests.support.sse import openai_turn  # noqa: E402

NEOCODE = str(Path(sys.executable).parent / "neocode")
EVERYTHING = {"command": str(ROOT / "tests" / "node" / "node_modules" / ".bin" / "mcp-server-everything"),
              "args": ["stdio"]}
TIMEOUT = 60.0

CONNECT_ONLY = """
import asyncio, sys
from mcp import Client, StdioServerParameters, stdio_client
async def main():
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with Client(stdio_client(params)) as client:
        await client.list_tools()
asyncio.run(main())
"""
"""The SDK's client alone: import, start the server, connect, list its tools, stop it."""


@contextmanager
def scratch(servers: dict[str, object] | None) -> Iterator[tuple[str, dict[str, str]]]:
    root = tempfile.mkdtemp(prefix="bench-mcp-")
    try:
        folders = {name: os.path.join(root, name) for name in ("work", "data", "config")}
        for folder in folders.values():
            os.mkdir(folder)
        if servers is not None:
            Path(folders["config"], "mcp.json").write_text(json.dumps({"mcpServers": servers}))
        env = {key: value for key, value in os.environ.items()
               if not key.startswith("NEOCODE_") and "API_KEY" not in key}
        env.update(NEOCODE_DATA_DIR=folders["data"], NEOCODE_CONFIG_DIR=folders["config"])
        yield folders["work"], env
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def run_neocode(model: ModelServer, prompt: str, servers: dict[str, object] | None) -> float:
    """Seconds from spawning ``neocode -p PROMPT`` to its exit (which must be a success)."""
    model.enqueue(Response(body=openai_turn("ok")))
    with scratch(servers) as (work, env):
        env.update(NEOCODE_PROVIDER="openai", NEOCODE_BASE_URL=model.url + "/v1", NEOCODE_MODEL="bench",
                   NEOCODE_MAX_RETRIES="0", OPENAI_API_KEY="sk-bench")
        began = time.perf_counter()
        child = await asyncio.create_subprocess_exec(
            NEOCODE, "-p", prompt, cwd=work, env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(child.communicate(), TIMEOUT)
        took = time.perf_counter() - began
    if child.returncode != 0 or b"failed" in err:
        raise RuntimeError(f"neocode -p {prompt} exited {child.returncode}: {err.decode()[-2000:]}")
    if prompt == "hi":
        model.requests.clear()
    else:
        model._queue.clear()  # a command asks no model: its reply is not taken
    return took


async def connect_only() -> float:
    with scratch(None) as (work, env):
        began = time.perf_counter()
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-c", CONNECT_ONLY, EVERYTHING["command"], *EVERYTHING["args"], cwd=work, env=env,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        await asyncio.wait_for(child.wait(), TIMEOUT)
        return time.perf_counter() - began


async def medians(runs: int, contenders: dict[str, Callable[[], Awaitable[float]]]) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(runs):
        for name, measure in contenders.items():
            times[name].append(await measure())
    return {name: statistics.median(values) for name, values in times.items()}


def compare(what: str, ours: float, base: float) -> str:
    return (f"{what:<36}{ours * 1e3:7.0f} ms  without servers {base * 1e3:5.0f} ms  "
            f"difference {(ours - base) * 1e3:+6.0f} ms  ratio {ours / base:.2f}x")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="runs of each (the median is kept)")
    args = parser.parse_args()
    if not Path(EVERYTHING["command"]).exists():
        sys.exit(f"{EVERYTHING['command']} is missing: run npm ci --prefix tests/node")
    everything = {"everything": EVERYTHING}
    async with ModelServer() as model:
        times = await medians(args.runs, {
            "prompt": lambda: run_neocode(model, "hi", None),
            "prompt mcp": lambda: run_neocode(model, "hi", everything),
            "command": lambda: run_neocode(model, "/cost", None),
            "command mcp": lambda: run_neocode(model, "/cost", everything),
            "mcp": lambda: run_neocode(model, "/mcp", None),
            "mcp mcp": lambda: run_neocode(model, "/mcp", everything),
            "connect": connect_only,
        })
    print(f"bench_mcp_startup: neocode -p, spawn to exit, median of {args.runs} runs each")
    print(compare("-p hi, server-everything", times["prompt mcp"], times["prompt"]))
    print(compare("-p /cost, server-everything", times["command mcp"], times["command"]))
    print(compare("-p /mcp, server-everything", times["mcp mcp"], times["mcp"]))
    print(f"  for reference, the SDK's client alone (import, start server-everything, connect, list "
          f"its tools, stop): {times['connect'] * 1e3:.0f} ms")


if __name__ == "__main__":
    asyncio.run(main())
