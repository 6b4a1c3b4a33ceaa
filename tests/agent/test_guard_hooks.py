"""Claude Code guards from npm and PyPI, unchanged, guarding a project through ``neocode -p``:
a real subprocess, the scripted model over loopback HTTP, a real git repository."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.calls import bash
from tests.support.dialects import Dialect
from tests.support.guards import SECRET, WORK, guarded_project, javascript_guard, python_guards
from tests.support.headless import run

RESET = bash("reset", "git reset --hard")
READ_ENV = ("env", "read_file", json.dumps({"path": ".env"}))


@pytest.mark.parametrize(("guard", "refusals"), [
    (javascript_guard, {
        "reset": "not run: blocked by a PreToolUse hook: BLOCKED by CC Safety Net",
        "env": "not run: blocked by a PreToolUse hook: BLOCKED by CC Safety Net",
    }),
    (python_guards, {
        "reset": "not run: a PreToolUse hook wants a yes for this call (WARNING: git reset --hard "
                 "discards uncommitted changes. Confirm to proceed.), and nobody can give one in this run",
        "env": "not run: a PreToolUse hook wants a yes for this call (azet-guard: [read_secret_file] "
               "Reads a secret file (.env)",
    }),
], ids=["cc-safety-net", "azet-guard+cervellaswarm"])
async def test_a_claude_code_guard_keeps_the_work_and_the_secret_in_a_headless_run(
    openai_only: Dialect, workspace: Path, tmp_path: Path, guard: Callable[[Path], None],
    refusals: dict[str, str],
) -> None:
    home = tmp_path / "home"
    guard(home)
    guarded_project(workspace)
    openai_only.reply("", [RESET, READ_ENV])
    openai_only.reply("Blocked, as it should be.")

    result = await run(openai_only, workspace, "--approval", "full-auto", "--sandbox", "off",
                       HOME=str(home))

    assert result.code == 0, result.err
    assert (workspace / "app.py").read_text() == WORK
    results = openai_only.tool_results(2)
    for call, refusal in refusals.items():
        assert results[call].startswith(refusal), results[call]
    assert "hunter2" not in json.dumps(openai_only.server.requests) + result.out + result.err
    assert SECRET in (workspace / ".env").read_text()


async def test_with_the_guard_s_answer_allowing_a_command_the_command_runs(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    """The same guards let ordinary work through: they are read, not merely failing closed."""
    home = tmp_path / "home"
    javascript_guard(home)
    python_guards(home)
    guarded_project(workspace)
    openai_only.reply("", [bash("status", "git status --short"), ("app", "read_file", json.dumps({"path": "app.py"}))])
    openai_only.reply("Fine.")

    result = await run(openai_only, workspace, "--approval", "full-auto", "--sandbox", "off", HOME=str(home))

    assert result.code == 0, result.err
    results = openai_only.tool_results(2)
    assert "M app.py" in results["status"]
    assert "uncommitted work" in results["app"]
    assert "hook" not in result.err
