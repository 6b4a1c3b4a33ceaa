"""Hooks where Claude Code keeps them and answers as its documentation gives them, and hooks
that misbehave: real scripts in real settings files, run by a real session against the
loopback model."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from neocode_tui.agent.loop_events import ApprovalDecision, ApprovalRequested
from neocode_tui.trust import trust
from tests.support.dialects import Dialect
from tests.support.hooks import group, hook, logged, write_hooks
from tests.support.recorder import notices
from tests.support.sessions import unsandboxed_session

READ = ("r", "read_file", json.dumps({"path": "app.py"}))


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    return home


def says(text: str) -> str:
    """A hook that prints ``text`` as it is."""
    return f"printf '%s' {shlex.quote(text)}"


def answer(**specific: object) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}})


async def test_hooks_are_read_from_claude_code_s_settings_files_the_project_s_only_when_trusted(
    openai_only: Dialect, workspace: Path, tmp_path: Path, own_home: Path
) -> None:
    write_hooks(own_home / ".claude" / "settings.json", {"Stop": group(hook(tmp_path, "user.log"))})
    shared, local = workspace / ".claude" / "settings.json", workspace / ".claude" / "settings.local.json"
    write_hooks(shared, {"Stop": group(hook(tmp_path, "shared.log"))})
    write_hooks(local, {"PreToolUse": group(hook(tmp_path, "local.log"), "Read")})
    openai_only.reply("", [READ])
    openai_only.reply("One.")
    session, recorder = unsandboxed_session(openai_only, workspace)
    await session.prompt("first")
    await session.aclose()

    assert len(logged(tmp_path, "user.log")) == 1
    assert logged(tmp_path, "shared.log") == [] and logged(tmp_path, "local.log") == []
    said = notices(recorder).splitlines()
    assert said.count("hooks in .claude/settings.json not run, this folder is not trusted: Stop") == 1
    assert said.count("hooks in .claude/settings.local.json not run, this folder is not trusted: PreToolUse") == 1

    trust(workspace)
    openai_only.reply("", [READ])
    openai_only.reply("Two.")
    session, recorder = unsandboxed_session(openai_only, workspace)
    await session.prompt("second")
    await session.aclose()
    assert len(logged(tmp_path, "shared.log")) == 1
    [event] = logged(tmp_path, "local.log")
    assert event["tool_name"] == "Read" and event["tool_input"]["file_path"] == str(workspace / "app.py")
    assert "not run" not in notices(recorder)

    write_hooks(local, {"PreToolUse": group("touch pwned", "Read")})  # changed behind the user's back
    openai_only.reply("", [READ])
    openai_only.reply("Three.")
    session, recorder = unsandboxed_session(openai_only, workspace)
    await session.prompt("third")
    await session.aclose()
    assert not (workspace / "pwned").exists()
    assert ("hooks in .claude/settings.local.json not run, .claude/settings.local.json is new or "
            "changed since you trusted this folder: PreToolUse") in notices(recorder)


async def test_updated_input_in_claude_code_s_words_changes_what_runs(
    openai_only: Dialect, workspace: Path, own_home: Path
) -> None:
    moved = answer(permissionDecision="allow", updatedInput={
        "file_path": str(workspace / "safe" / "out.txt"), "content": "checked\n"})
    write_hooks(own_home / ".claude" / "settings.json",
                {"PreToolUse": group(says(moved), "Write")})
    openai_only.reply("", [("w", "write_file", json.dumps({"path": "out.txt", "content": "raw\n"}))])
    openai_only.reply("Written.")
    session, recorder = unsandboxed_session(openai_only, workspace, approval="auto-edit")
    await session.prompt("write it")
    await session.aclose()

    assert not (workspace / "out.txt").exists()
    assert (workspace / "safe" / "out.txt").read_text() == "checked\n"
    assert "safe/out.txt" in openai_only.tool_results(2)["w"]


async def test_additional_context_system_message_and_continue_false(
    openai_only: Dialect, workspace: Path, own_home: Path
) -> None:
    context = answer(additionalContext="app.py is generated; edit the template")
    stop = json.dumps({"continue": False, "stopReason": "the build is broken, fix it by hand",
                       "systemMessage": "guard: stopping"})
    write_hooks(own_home / ".claude" / "settings.json", {"PreToolUse": [
        *group(says(context), "Read"), *group(says(stop), "Bash")]})
    openai_only.reply("", [READ])
    openai_only.reply("", [("b", "bash", json.dumps({"command": "touch ran"}))])
    openai_only.reply("Never asked for.")
    session, recorder = unsandboxed_session(openai_only, workspace)
    finished = await session.prompt("go")
    await session.aclose()

    assert openai_only.tool_results(2)["r"].endswith(
        "\n\n[PreToolUse hook: app.py is generated; edit the template]")
    assert not (workspace / "ran").exists()
    assert len(openai_only.server.requests) == 2  # the run ended at the hook: no third request
    assert finished.reason == "done"
    said = notices(recorder)
    assert "a PreToolUse hook stopped the run: the build is broken, fix it by hand" in said
    assert "guard: stopping" in said


async def test_a_stop_hook_that_blocks_sends_the_agent_on_once_with_its_reason(
    openai_only: Dialect, workspace: Path, tmp_path: Path, own_home: Path
) -> None:
    script = tmp_path / "stop.py"
    script.write_text(
        "import json, sys\n"
        "event = json.load(sys.stdin)\n"
        f"open({str(tmp_path / 'stop.log')!r}, 'a').write(json.dumps(event) + '\\n')\n"
        "if not event['stop_hook_active']:\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'run the tests first'}))\n")
    write_hooks(own_home / ".claude" / "settings.json", {"Stop": group(f"{sys.executable} {script}")})
    openai_only.reply("Done, I think.")
    openai_only.reply("Tests pass.")
    session, recorder = unsandboxed_session(openai_only, workspace)
    finished = await session.prompt("fix it")
    await session.aclose()

    assert finished.final_text == "Tests pass."
    assert [event["stop_hook_active"] for event in logged(tmp_path, "stop.log")] == [False, True]
    sent = [m["content"] for m in openai_only.request(2)["messages"] if m["role"] == "user"][-1]
    assert sent.endswith("It says:]\nrun the tests first")
    assert "a Stop hook sends the agent on: run the tests first" in notices(recorder)


@pytest.mark.parametrize(("command", "why"), [
    ("head -c 10000000 /dev/zero | tr '\\0' x", "printed more than 64000 bytes"),
    ("echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"perhaps\"'", "not a JSON object"),
    ("echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"perhaps\"}}'", "answered permissionDecision 'perhaps'"),
    ("printf '\\377\\376{' ; exit 0", "printed bytes that are not UTF-8"),
    ("exit 1", "failed (exit code 1)"),
])
async def test_a_guard_that_answers_garbage_lets_nothing_through_unasked(
    openai_only: Dialect, workspace: Path, own_home: Path, command: str, why: str
) -> None:
    write_hooks(own_home / ".claude" / "settings.json", {"PreToolUse": group(command, "Read")})
    openai_only.reply("", [READ])
    openai_only.reply("Could not.")
    session, recorder = unsandboxed_session(openai_only, workspace)
    await session.prompt("read app.py")
    await session.aclose()

    result = openai_only.tool_results(2)["r"]
    assert result.startswith("not run: a PreToolUse hook wants a yes for this call") and why in result
    assert why in notices(recorder)


async def test_in_the_app_or_an_editor_a_failed_guard_asks_the_user(
    openai_only: Dialect, workspace: Path, own_home: Path
) -> None:
    write_hooks(own_home / ".claude" / "settings.json", {"PreToolUse": group("exit 7", "Read")})
    second = ("r2", "read_file", json.dumps({"path": "app.py"}))
    openai_only.reply("", [READ, second])
    openai_only.reply("Read once.")
    asked: list[str] = []

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        asked.append(request.call_id)
        return ApprovalDecision(verdict="yes" if len(asked) == 1 else "no")

    session, _ = unsandboxed_session(openai_only, workspace, approver=approver)
    await session.prompt("read app.py twice")
    await session.aclose()

    assert asked == ["r", "r2"]
    assert "greet" in openai_only.tool_results(2)["r"]
    assert openai_only.tool_results(2)["r2"] == "the user denied this call"


async def test_a_matcher_that_is_no_pattern_is_reported_once_and_the_other_hooks_run(
    openai_only: Dialect, workspace: Path, tmp_path: Path, own_home: Path
) -> None:
    write_hooks(own_home / ".claude" / "settings.json", {"PreToolUse": [
        *group("exit 2", "Bash(("), *group(hook(tmp_path, "fine.log"), "Read")]})
    openai_only.reply("", [READ])
    openai_only.reply("One.")
    openai_only.reply("Two.")
    session, recorder = unsandboxed_session(openai_only, workspace)
    await session.prompt("first")
    await session.prompt("second")
    await session.aclose()

    said = [line for line in notices(recorder).splitlines() if "'Bash(('" in line]
    assert len(said) == 1 and "is not a valid pattern" in said[0] and "its hooks do not run" in said[0]
    assert len(logged(tmp_path, "fine.log")) == 1
    assert "greet" in openai_only.tool_results(2)["r"]
