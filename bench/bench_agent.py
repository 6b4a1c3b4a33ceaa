"""What the agent layer costs: the grep tool against GNU grep, the loop against bare parts.

Run: ``.venv/bin/python bench/bench_agent.py [--files 2000] [--turns 200] [--repeat 3]``
(``--files 6700`` makes a 100 MB tree).

- **grep**: the ``grep`` tool (ripgrep from the wheel, as a killable subprocess, skipping
  .git/node_modules and binaries, capped output with a count) against ``grep -rnI`` with
  the same exclusions, over a generated tree; both must find the same number of matching
  lines.
- **loop**: ``AgentLoop.run`` over the offline ``ScriptedProvider`` for ``--turns`` turns,
  each reading a file, against the same work done by hand: ``collect`` the same events
  and run the same tool. The ratio is the loop's own overhead (requests, approvals,
  transcript, events, session records).

The best of ``--repeat`` runs is kept for each side.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from neocode_tui.agent.loop import AgentLoop
from neocode_tui.agent.store import SessionStore
from neocode_tui.agent.tools import default_tools
from neocode_tui.agent.workspace import Workspace
from neocode_tui.chat import ChatRequest
from neocode_tui.collector import collect
from neocode_tui.providers.scripted import ScriptedProvider, scripted_reply

LINE = "def function_{n}(value):  # a line of ordinary code with some words in it\n"


def make_tree(root: Path, files: int) -> None:
    for number in range(files):
        folder = root / f"pkg{number % 40}" / f"sub{number % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [LINE.format(n=n) for n in range(200)]
        if number % 20 == 0:  # a realistic search: most files do not match
            lines[number % 200] = f"NEEDLE_{number} = True\n"
        (folder / f"module_{number}.py").write_text("".join(lines))
    for ignored in (".git", "node_modules"):
        (root / ignored).mkdir()
        (root / ignored / "x.py").write_text("NEEDLE_ignored = 1\n" * 100)
    (root / "blob.bin").write_bytes(b"\0NEEDLE_binary" * 1000)


def best(repeat: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_grep(root: Path, files: int, repeat: int) -> None:
    tool = default_tools().get("grep")
    assert tool is not None
    args = tool.args_model(pattern=r"NEEDLE_\d+")
    workspace = Workspace(root)
    found: list[int] = []

    def ours() -> None:
        out = asyncio.run(tool.run(args, workspace)).text.splitlines()
        more = re.fullmatch(r"\[(\d+) more matches; narrow the search\]", out[-1])
        found.append(len(out) - 1 + int(more.group(1)) if more else len(out))

    command = ["grep", "-rnIE", "--exclude-dir=.git", "--exclude-dir=node_modules",
               r"NEEDLE_[0-9]+", "."]

    def gnu() -> None:
        out = subprocess.run(command, cwd=root, capture_output=True, text=True, check=True)
        found.append(len(out.stdout.splitlines()))

    ours_time = best(repeat, ours)
    ours_found = found[-1]  # the tool shows the first matches and counts the rest in a note
    gnu_time = best(repeat, gnu)
    assert ours_found == found[-1], (ours_found, found[-1])
    print(f"grep, {found[-1]} matching lines in {files} files: tool {ours_time * 1000:.1f} ms, "
          f"GNU grep {gnu_time * 1000:.1f} ms, ratio {ours_time / gnu_time:.1f}x")


async def loop_run(root: Path, turns: int) -> None:
    replies = [scripted_reply("Reading.", [("read_file", '{"path": "pkg0/sub0/module_0.py"}')])
               for _ in range(turns - 1)] + [scripted_reply("Done.")]
    provider = ScriptedProvider(replies)
    session = SessionStore.create(root, provider="scripted", model="scripted")
    loop = AgentLoop(provider, root, sink=lambda event: None, approval="full-auto",
                     max_turns=turns, session=session, system_prompt="bench")
    finished = await loop.run("read it again and again")
    session.close()
    assert finished.reason == "done", finished


async def by_hand(root: Path, turns: int) -> None:
    replies = [scripted_reply("Reading.", [("read_file", '{"path": "pkg0/sub0/module_0.py"}')])
               for _ in range(turns - 1)] + [scripted_reply("Done.")]
    provider = ScriptedProvider(replies)
    tools = default_tools()
    workspace = Workspace(root)
    for _ in range(turns):
        request = ChatRequest(model="scripted", messages=[])
        turn = await collect(provider.stream(request), lambda event: None)
        for call in turn.tool_calls:
            tool = tools.get(call.name)
            assert tool is not None
            await tool.run(tool.args_model.model_validate(call.arguments_json), workspace)


def bench_loop(root: Path, turns: int, repeat: int) -> None:
    def run(factory: Callable[[Path, int], Awaitable[None]]) -> Callable[[], None]:
        return lambda: asyncio.run(factory(root, turns))

    loop_time = best(repeat, run(loop_run))
    hand_time = best(repeat, run(by_hand))
    print(f"loop, {turns} turns with a read each: AgentLoop {loop_time * 1000:.1f} ms "
          f"({loop_time / turns * 1000:.2f} ms/turn), by hand {hand_time * 1000:.1f} ms "
          f"({hand_time / turns * 1000:.2f} ms/turn), ratio {loop_time / hand_time:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="neocode-bench-"))
    os.environ["NEOCODE_DATA_DIR"] = str(root / ".data")
    try:
        make_tree(root / "ws", options.files)
        if shutil.which("grep"):
            bench_grep(root / "ws", options.files, options.repeat)
        bench_loop(root / "ws", options.turns, options.repeat)
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
