"""A bash call leaves no process behind: not its background jobs, not children that left its
process group with ``setsid``, not a process forking while it is killed; and nothing else."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
from pathlib import Path

import pytest

from neocode_tui.agent.processes.tree import ProcessTree, kill_all
from neocode_tui.agent.sandbox.bubblewrap import choose_sandbox
from neocode_tui.agent.tools import ToolOutput
from neocode_tui.agent.tools.bash import Bash, BashArgs
from neocode_tui.agent.workspace import Workspace
from neocode_tui.vocabulary import SandboxMode
from tests.support.processes import TIME_LIMIT, process_alive, sleepers
from tests.support.waits import PATIENCE, wait_for_file, wait_until

SCATTERED = (
    "setsid sleep 300 & echo $! > setsid.pid; "                       # left the group
    "sleep 300 & echo $! > plain.pid; "                               # a plain background job
    "setsid bash -c 'sleep 300 & echo $! > deep.pid; exec sleep 300' & "  # its child too
    "env -i /bin/sleep 300 & echo $! > bare.pid; "                    # an empty environment
    "echo $$ > shell.pid; "
)
PIDS = ("setsid", "plain", "deep", "bare", "shell")


def bash(folder: Path, command: str, timeout: int = 120) -> asyncio.Task[ToolOutput]:
    args = BashArgs(command=command, timeout=timeout)
    return asyncio.create_task(Bash().run(args, Workspace(folder)))


async def started(folder: Path, names: tuple[str, ...] = PIDS) -> list[int]:
    pids = [int(await wait_for_file(folder / f"{name}.pid")) for name in names]
    assert all(process_alive(pid) for pid in pids)
    return pids


def gone(pid: int) -> bool:
    """Dead and reaped: not even a zombie left in the process table."""
    return not Path(f"/proc/{pid}").exists()


async def test_cancel_ends_every_process_the_command_started(tmp_path: Path) -> None:
    task = bash(tmp_path, SCATTERED + "wait")
    pids = await started(tmp_path)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert [pid for pid in pids if not gone(pid)] == []


async def test_a_timeout_ends_every_process_the_command_started(tmp_path: Path) -> None:
    task = bash(tmp_path, SCATTERED + "wait", timeout=TIME_LIMIT)
    pids = await started(tmp_path)

    out = await asyncio.wait_for(task, PATIENCE)

    assert out.is_error and f"[timed out after {TIME_LIMIT}s" in out.text
    assert [pid for pid in pids if not gone(pid)] == []


async def test_orphans_left_by_a_finished_command_are_ended(tmp_path: Path) -> None:
    command = ("(setsid sh -c 'echo $$ > orphan.pid; exec sleep 300' > /dev/null 2>&1 &); "
               "until [ -s orphan.pid ]; do sleep 0.01; done; echo done")
    out = await asyncio.wait_for(bash(tmp_path, command), PATIENCE)
    orphan = int((tmp_path / "orphan.pid").read_text())

    assert out.text == "done" and not out.is_error
    assert gone(orphan)


async def test_a_process_forking_while_it_is_killed_does_not_escape(tmp_path: Path) -> None:
    # Bounded, and short-lived, so that a failing kill cannot leave a fork bomb behind.
    command = ("setsid bash -c 'for i in $(seq 3000); do sleep 60 & echo $! >> many.pid; done' & "
               "echo $! > loop.pid; sleep 60")
    task = bash(tmp_path, command)
    [forker] = await started(tmp_path, ("loop",))
    many = tmp_path / "many.pid"
    while not many.exists() or len(many.read_text().split()) < 20:
        await asyncio.sleep(0.01)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    children = [int(word) for word in (tmp_path / "many.pid").read_text().split() if word.isdigit()]
    assert [pid for pid in [forker, *children] if not gone(pid)] == []


async def test_kill_all_ends_running_commands_at_once(tmp_path: Path) -> None:
    """What a front end calls when it must exit now (SIGTERM, SIGHUP)."""
    task = bash(tmp_path, SCATTERED + "wait")
    pids = await started(tmp_path)

    kill_all()

    assert [pid for pid in pids[:-1] if not gone(pid)] == []  # the shell is reaped by its waiter
    out = await asyncio.wait_for(task, PATIENCE)
    assert out.is_error
    assert gone(pids[-1])


async def test_kill_all_ends_a_command_whose_starter_has_not_yet_heard_its_pid(tmp_path: Path) -> None:
    """A command runs before whoever started it gets its pid back: an exit in that moment
    ends it too."""
    tree = ProcessTree()
    shell = subprocess.Popen(["bash", "-c", SCATTERED + "wait"], cwd=tmp_path,
                             env=tree.environment(dict(os.environ)), start_new_session=True)
    try:
        pids = await started(tmp_path)

        kill_all()  # before tree.started(shell.pid)

        assert [pid for pid in pids[:-1] if not gone(pid)] == []
        assert shell.wait(PATIENCE) == -signal.SIGKILL
    finally:
        shell.kill()
        shell.wait()


async def test_processes_that_are_not_the_commands_are_left_alone(tmp_path: Path) -> None:
    bystander = subprocess.Popen(["sleep", "1000"])  # say, a language server neocode started
    try:
        task = bash(tmp_path, SCATTERED + "wait")
        pids = await started(tmp_path)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert [pid for pid in pids if not gone(pid)] == []
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()


@pytest.mark.parametrize("mode", ["off", "workspace-write"])
async def test_a_stopped_command_runs_nothing_after_the_one_it_was_stopped_in(
    tmp_path: Path, mode: SandboxMode
) -> None:
    """The shell dies with its foreground command, never after it: a shell that outlived it
    by a moment would go on to the next command of the line."""
    box = choose_sandbox(mode, False)
    assert box.active or mode == "off", box.unavailable
    for attempt in range(10):
        folder = tmp_path / str(attempt)
        folder.mkdir()
        seconds = f"{secrets.randbelow(10**6) + 10**6}"
        args = BashArgs(command=f"sleep {seconds}; echo ran > after.txt")
        task = asyncio.create_task(Bash(sandbox=box).run(args, Workspace(folder)))
        await wait_until(lambda: bool(sleepers(seconds)), what="the sleep")  # noqa: B023
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not (folder / "after.txt").exists()


async def test_a_process_that_cleared_its_environment_and_left_its_parent_is_ended(tmp_path: Path) -> None:
    """Orphaned, in a session of its own and with no environment, it carries no sign of the
    command: it is still the command's."""
    command = "(setsid env -i /bin/sleep 300 & echo $! > bare.pid); sleep 300"
    task = bash(tmp_path, command)
    [bare] = await started(tmp_path, ("bare",))

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert gone(bare)


def storm(seconds: str) -> str:
    """A command whose shell keeps forking children that each escape three ways: a session
    of their own, a double fork, and a double fork that also drops its environment. Bounded,
    and each sleep short-lived, so that a failing kill cannot leave a fork bomb behind."""
    return (
        "for i in $(seq 400); do "
        "setsid bash -c '"
        f"sleep {seconds} & echo $! >> many.pid; "
        f"(setsid sleep {seconds} & echo $! >> many.pid); "
        f"(setsid env -i /bin/sleep {seconds} & echo $! >> many.pid); "
        f"echo $$ >> many.pid; exec sleep {seconds}' & "
        "done; wait"
    )


async def test_a_tree_that_keeps_forking_and_escaping_is_ended_whole(tmp_path: Path) -> None:
    seconds = f"{60 + secrets.randbelow(10**6) / 10**6:.6f}"
    many = tmp_path / "many.pid"
    task = bash(tmp_path, storm(seconds))
    await wait_until(lambda: many.exists() and len(many.read_text().split()) >= 40, what="the forks")

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    pids = [int(word) for word in many.read_text().split() if word.isdigit()]
    assert [pid for pid in pids if not gone(pid)] == []
    assert sleepers(seconds) == []  # nor one forked after its pid was written
