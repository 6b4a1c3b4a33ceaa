"""Long sessions in the real app: resume, scroll, append, resize and memory, by session length.

Each figure comes from a fresh process running ``NeoCodeApp`` on a real session file (written
with ``SessionStore``, as the app writes them) resumed the way ``neocode --continue`` does it:
an exchange is a question, an answer that reads a file, the file, and an answer with code, so
messages average about 500 characters. The baseline is the same app with nothing to resume,
measured in the same run; the short session shows what does not grow with the history.

    .venv/bin/python bench/bench_long_session.py            # 0, 100 and 10,000 messages
    .venv/bin/python bench/bench_long_session.py --messages 2000

Goals: a 10,000-message session (5M characters) on its first screen in under 1 s, a message
appended in under 50 ms, under 150 MB of memory, under 0.5 s of CPU after the first screen.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

SIZE = (120, 40)
IDLE_SECONDS = 3.0


def exchange(n: int) -> list[dict[str, object]]:
    """Four messages of one realistic exchange, about 2,000 characters in all."""
    source = "".join(f"def step_{n}_{i}(value):\n    return transform(value, level={i})\n\n" for i in range(16))
    answer = (
        f"## Step {n}\n\nThe loader keeps **two** copies of the index; `step_{n}` can reuse the first.\n\n"
        "- read once\n- reuse the parsed table\n- drop the second pass\n\n"
        f"```python\ndef load_{n}(path):\n    table = parse(path.read_text())\n    return reuse(table)\n```\n\n"
        + "That leaves one pass over the file, which is what the profile asked for. " * 9
    )
    call = {"id": f"call_{n}", "name": "read_file", "arguments": json.dumps({"path": f"src/step_{n}.py"})}
    return [
        {"role": "user", "content": f"question {n}: why does the loader read the index twice?"},
        {"role": "assistant", "content": "Let me look at the loader first.", "tool_calls": [call]},
        {"role": "tool", "content": source, "tool_call_id": f"call_{n}", "name": "read_file"},
        {"role": "assistant", "content": answer},
    ]


def write_session(data_dir: Path, workspace: Path, count: int) -> int:
    """A session of ``count`` messages for ``workspace``, written as the app writes one; its characters."""
    os.environ["NEOCODE_DATA_DIR"] = str(data_dir)
    from neocode_tui.agent.store import SessionStore
    from neocode_tui.chat import Message

    store = SessionStore.create(workspace, provider="scripted", model="bench")
    chars = 0
    n = 0
    while n * 4 < count:
        for record in exchange(n)[: count - n * 4]:
            message = Message.model_validate(record)
            chars += len(message.content) + sum(len(call.arguments) for call in message.tool_calls)
            store.append_message(message)
        n += 1
    store.close()
    return chars


def vm(field: str) -> float:
    """A figure of this process from /proc (VmHWM: peak RSS, VmRSS: now), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


async def drawn(view: object) -> None:
    """Until the view has drawn everything posted to it."""
    await asyncio.sleep(0)
    while view._pending or view._undrawn:  # type: ignore[attr-defined]
        await asyncio.sleep(0.001)


async def measure(started: float, resume: bool) -> dict[str, float]:
    """In the child: run the app, resuming this folder's session when there is one."""
    from neocode_tui.settings.model import Settings
    from neocode_tui.tui.app import NeoCodeApp

    app = NeoCodeApp(Settings(), workspace=Path.cwd(), remember_theme=False, resume="" if resume else None)
    figures: dict[str, float] = {}
    async with app.run_test(size=SIZE) as pilot:
        view = app.conversation
        await drawn(view)
        figures["first_screen_s"] = time.time() - started
        figures["blocks"] = len(view._lines.blocks)
        meter = app.session.meter
        began = time.perf_counter()
        figure = meter.context  # what the status bar reads after each turn
        figures["meter_s"] = time.perf_counter() - began
        began = time.perf_counter()
        assert meter.context == figure  # asked again: the same history
        figures["meter_again_s"] = time.perf_counter() - began
        figures["ctx_percent"] = figure.tokens / meter.working_window * 100
        cpu = time.process_time()
        await asyncio.sleep(IDLE_SECONDS)
        figures["idle_cpu_s"] = time.process_time() - cpu
        cpu = time.process_time()
        for _ in range(10):
            await pilot.press("pageup")
            await drawn(view)
        figures["pageup_10_cpu_s"] = time.process_time() - cpu
        async def timed(name: str, action: Callable[[], Awaitable[object] | None]) -> None:
            began = time.perf_counter()
            if (waiting := action()) is not None:
                await waiting
            await drawn(view)
            figures[name] = time.perf_counter() - began

        await timed("home_s", lambda: view.scroll_home(animate=False, immediate=True))
        await timed("end_s", lambda: pilot.press("end"))
        await timed("append_s", lambda: view.add_user_message("one more question"))
        await timed("transcript_s", lambda: pilot.press("ctrl+o"))
        await timed("resize_s", lambda: pilot.resize_terminal(100, 30))
        cpu = time.process_time()
        await asyncio.sleep(1.0)
        figures["idle_after_resize_cpu_s"] = time.process_time() - cpu
        figures["held_lines"] = view._lines.resident_lines
    figures["rss_mb"] = vm("VmHWM")
    return figures


def run(count: int) -> dict[str, float]:
    """One fresh process: a workspace, a session of ``count`` messages, the app resuming it."""
    with tempfile.TemporaryDirectory(prefix="bench-long-") as scratch:
        root = Path(scratch)
        data, config, workspace = root / "data", root / "config", root / "work"
        workspace.mkdir()
        chars = write_session(data, workspace, count) if count else 0
        env = {
            **os.environ, "NEOCODE_DATA_DIR": str(data), "NEOCODE_CONFIG_DIR": str(config),
            "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "NEOCODE_NOTIFY": "off",
        }
        started = time.time()
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(started), "1" if count else "0"],
            check=True, capture_output=True, text=True, env=env, cwd=workspace,
        )
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        figures["chars"] = chars
        return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=10_000, help="the long session's length")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(measure(float(args.child[0]), args.child[1] == "1"))))
        return

    rows = {count: run(count) for count in (0, 100, args.messages)}
    base, long = rows[0], rows[args.messages]
    print(f"bench_long_session: the real app resuming a session file, {SIZE[0]}x{SIZE[1]}, headless")
    print(f"{'messages':>9}{'chars':>11}{'blocks':>8}{'1st screen':>12}{'idle CPU':>10}{'10 PgUp':>9}"
          f"{'Home':>7}{'End':>7}{'append':>8}{'Ctrl+O':>8}{'resize':>8}{'peak RSS':>10}"
          f"{'meter':>8}{'again':>8}{'ctx':>7}")
    for count, row in rows.items():
        print(f"{count:9,}{row['chars']:11,}{row['blocks']:8,.0f}{row['first_screen_s'] * 1e3:10.0f}ms"
              f"{row['idle_cpu_s'] * 1e3:8.0f}ms{row['pageup_10_cpu_s'] * 1e3:7.0f}ms{row['home_s'] * 1e3:5.0f}ms"
              f"{row['end_s'] * 1e3:5.0f}ms{row['append_s'] * 1e3:6.0f}ms{row['transcript_s'] * 1e3:6.0f}ms"
              f"{row['resize_s'] * 1e3:6.0f}ms{row['rss_mb']:8.0f}MB"
              f"{row['meter_s'] * 1e3:6.1f}ms{row['meter_again_s'] * 1e3:6.1f}ms{row['ctx_percent']:6.0f}%")
    print(f"(first screen: from the process's start, imports included; idle CPU: the {IDLE_SECONDS:.0f} s after it; "
          f"10 PgUp: CPU; meter: the context figure after the resume, first and again, and what it "
          "reads against the window the next request is sent to)")
    short = rows[100]
    print(f"\n{args.messages:,} messages against 100: first screen "
          f"{long['first_screen_s'] / short['first_screen_s']:.2f}x "
          f"(+{(long['first_screen_s'] - short['first_screen_s']) * 1e3:.0f} ms; a resume makes the agent "
          "session before its first frame, a new start after it)")
    print(f"{args.messages:,} messages against none: first screen "
          f"+{(long['first_screen_s'] - base['first_screen_s']) * 1e3:.0f} ms, "
          f"peak RSS +{long['rss_mb'] - base['rss_mb']:.0f} MB, idle CPU after the first screen "
          f"{long['idle_cpu_s'] * 1e3:.0f} ms vs {base['idle_cpu_s'] * 1e3:.0f} ms, "
          f"rendered lines held at the end {long['held_lines']:,.0f}")
    print("goals: first screen < 1 s, append < 50 ms, peak RSS < 150 MB, CPU after the first screen < 0.5 s")


if __name__ == "__main__":
    main()
