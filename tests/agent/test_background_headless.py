"""Background commands in ``neocode -p``: ``/ps`` answered by the core, and a command still
running when the run ends stopped, with a word on stderr."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from tests.agent.conftest import Dialect
from tests.agent.helpers import sleepers
from tests.agent.test_headless import neocode


async def test_ps_lists_nothing_in_a_fresh_session(dialect: Dialect, workspace: Path) -> None:
    result = await neocode(dialect, workspace, "-p", "/ps")

    assert (result.code, result.out) == (
        0, "no background commands (bash run_in_background, or Ctrl+B on a running command)\n"
    )
    assert dialect.server.requests == []


async def test_ps_kill_of_an_unknown_id_is_a_warning(dialect: Dialect, workspace: Path) -> None:
    result = await neocode(dialect, workspace, "-p", "/ps kill b7")

    assert (result.code, result.out) == (1, "no background command with id 'b7' (the ids: none)\n")


async def test_a_command_running_when_the_run_ends_is_stopped_and_the_user_told(
    dialect: Dialect, workspace: Path
) -> None:
    token = f"34{secrets.randbelow(10**6)}"
    command = json.dumps({"command": f"setsid sleep {token} & echo $! > pid; wait", "run_in_background": True})
    dialect.reply("", [("c1", "bash", command)])
    dialect.reply("", [("c2", "bash", json.dumps({"command": "until [ -s pid ]; do sleep 0.02; done"}))])
    dialect.reply("It runs.")

    result = await neocode(dialect, workspace, "-p", "start it", "--approval", "full-auto")

    assert result.code == 0 and result.out == "It runs.\n"
    assert (f"stopped 1 background command (b1: setsid sleep {token} & echo $! > pid; wait) "
            "as the session ended") in result.err
    assert (workspace / "pid").read_text().strip(), "it was running"
    assert sleepers(token) == []
