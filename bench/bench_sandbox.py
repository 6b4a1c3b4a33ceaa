"""What the sandbox costs per command: the ``bash`` tool sandboxed against the same tool
with the sandbox off, in the same process.

Run: ``.venv/bin/python bench/bench_sandbox.py [--commands 50] [--repeat 3] [--mode workspace-write]``

Each side runs ``--commands`` times ``true`` (nothing but the start and end of a command) in
a git repository, so the sandbox's whole set-up is measured: the namespaces, the mounts,
the secrets hidden, the git folder protected. The median per command of the best of
``--repeat`` rounds is kept for each side; the goal is under 20 ms added per command.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from neocode_tui.agent.sandbox import Sandbox, choose_sandbox
from neocode_tui.agent.tools.bash import Bash, BashArgs
from neocode_tui.agent.workspace import Workspace

GOAL_MS = 20.0


async def per_command(tool: Bash, workspace: Workspace, commands: int) -> float:
    """Median seconds per ``true``."""
    args = BashArgs(command="true")
    times = []
    for _ in range(commands):
        start = time.perf_counter()
        out = await tool.run(args, workspace)
        times.append(time.perf_counter() - start)
        assert not out.is_error, out.text
    return statistics.median(times)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mode", choices=("workspace-write", "read-only"), default="workspace-write")
    options = parser.parse_args()
    sandbox = choose_sandbox(options.mode)
    if not sandbox.active:
        print(f"no sandbox to measure: {sandbox.unavailable}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["git", "init", "-q", folder], check=True)
        workspace = Workspace(Path(folder))
        off, boxed = Bash(sandbox=Sandbox()), Bash(sandbox=sandbox)
        await per_command(boxed, workspace, 3)  # warm up: the probe, the first mounts
        base = min([await per_command(off, workspace, options.commands)
                    for _ in range(options.repeat)])
        confined = min([await per_command(boxed, workspace, options.commands)
                        for _ in range(options.repeat)])
    added = (confined - base) * 1000
    print(f"bash 'true', sandbox off:        {base * 1000:7.2f} ms per command")
    print(f"bash 'true', sandbox {options.mode}: {confined * 1000:7.2f} ms per command")
    print(f"ratio {confined / base:.2f}x, {added:+.2f} ms per command "
          f"(goal: under {GOAL_MS:g} ms) {'OK' if added < GOAL_MS else 'OVER'}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
