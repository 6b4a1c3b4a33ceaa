"""Hooks as a user writes them: real scripts in real files, run by a real session against the
loopback model, on Claude Code's contract (JSON on stdin, exit 2 blocks, JSON answers)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from neocode_tui.agent.loop_events import ApprovalDecision, ApprovalRequested, RunFinished
from neocode_tui.agent.session import FrontEnd
from neocode_tui.agent.session.agent_session import AgentSession
from neocode_tui.paths import config_dir
from neocode_tui.settings.model import Settings
from neocode_tui.trust import trust
from tests.support.dialects import API_KEY, Dialect
from tests.support.hooks import group, hook, logged, user_hooks, write_hooks
from tests.support.processes import TIME_LIMIT, wait_dead
from tests.support.recorder import Recorder, notices
from tests.support.sessions import unsandboxed_session
from tests.support.transcripts import assert_transcript_valid
from tests.support.waits import PATIENCE, wait_for_file


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


async def test_a_pre_tool_hook_that_exits_2_blocks_the_call_and_the_model_reads_why(
    dialect: Dialect, workspace: Path, tmp_path: Path
) -> None:
    user_hooks({"PreToolUse": group(hook(tmp_path, "pre.log", code=2, stderr="no rm here"), "Bash")})
    dialect.reply("", [("c1", "bash", json.dumps({"command": "touch ran.txt"}))])
    dialect.reply("Understood.")
    session, recorder = unsandboxed_session(dialect, workspace)

    finished = await session.prompt("clean up")

    assert finished.final_text == "Understood."
    assert not (workspace / "ran.txt").exists()
    assert dialect.tool_results(2)["c1"] == "not run: blocked by a PreToolUse hook: no rm here"
    [event] = logged(tmp_path, "pre.log")
    assert event == {
        "session_id": session.id, "transcript_path": str(session.transcript), "cwd": str(workspace),
        "permission_mode": "bypassPermissions", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "touch ran.txt"}, "tool_use_id": "c1",
    }
    assert session.transcript is not None and session.transcript.is_file()
    assert "PreToolUse hook" in notices(recorder) and "blocked: no rm here" in notices(recorder)
    await session.aclose()


async def test_a_pre_tool_hook_can_allow_a_call_the_mode_would_ask_about_or_ask_for_one(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    allow = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}})
    ask = json.dumps({"hookSpecificOutput": {"permissionDecision": "ask"}})
    user_hooks({"PreToolUse": [
        *group(hook(tmp_path, "allow.log", stdout=allow), "Write"),  # Claude Code's name for write_file
        *group(hook(tmp_path, "ask.log", stdout=ask), "read_file"),
    ]})
    openai_only.reply("", [("w", "write_file", json.dumps({"path": "new.py", "content": "x = 1\n"}))])
    openai_only.reply("", [("r", "read_file", json.dumps({"path": "app.py"}))])
    openai_only.reply("Done.")
    asked: list[str] = []

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        asked.append(request.name)
        return ApprovalDecision(verdict="no", reason="not now")

    session, _ = unsandboxed_session(openai_only, workspace, approval="ask", approver=approver)
    await session.prompt("write and read")

    assert (workspace / "new.py").read_text() == "x = 1\n"  # written without a question
    assert asked == ["read_file"]  # reading never asks in this mode; the hook asked
    assert openai_only.tool_results(3)["r"] == "the user denied this call: not now"
    assert [e["tool_name"] for e in logged(tmp_path, "allow.log")] == ["Write"]
    await session.aclose()


async def test_a_post_tool_hook_sees_the_result_and_what_it_says_on_exit_2_reaches_the_model(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    user_hooks({"PostToolUse": group(hook(tmp_path, "post.log", code=2, stderr="lint: E501"), "edit_file")})
    openai_only.reply("", [("e", "edit_file", json.dumps(
        {"path": "app.py", "old_string": "'hello'", "new_string": "'hi'"}))])
    openai_only.reply("Fixed.")
    session, _ = unsandboxed_session(openai_only, workspace)

    await session.prompt("say hi")

    result = openai_only.tool_results(2)["e"]
    assert result.endswith("\n\n[PostToolUse hook: lint: E501]")
    assert "'hi'" in (workspace / "app.py").read_text()
    [event] = logged(tmp_path, "post.log")
    assert event["hook_event_name"] == "PostToolUse" and event["tool_name"] == "Edit"
    assert event["tool_use_id"] == "e"
    assert event["tool_input"] == {"file_path": str(workspace / "app.py"), "old_string": "'hello'",
                                   "new_string": "'hi'"}
    assert event["tool_response"]["output"] == result.split("\n\n[PostToolUse")[0]
    assert event["tool_response"]["filePath"] == str(workspace / "app.py")
    assert event["tool_response"]["success"] is True
    await session.aclose()


async def test_a_prompt_hook_adds_context_or_blocks_the_prompt_and_stop_hooks_run_after(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    user_hooks({
        "UserPromptSubmit": group(hook(tmp_path, "prompt.log", stdout="Ticket: NEO-42")),
        "Stop": group(hook(tmp_path, "stop.log")),
    })
    openai_only.reply("On it.")
    session, _ = unsandboxed_session(openai_only, workspace)

    await session.prompt("fix the bug")

    [sent] = [m for m in openai_only.request(1)["messages"] if m["role"] == "user"]
    assert sent["content"] == (
        "fix the bug\n\n<user-prompt-submit-hook>\nTicket: NEO-42\n</user-prompt-submit-hook>"
    )
    assert logged(tmp_path, "prompt.log")[0]["prompt"] == "fix the bug"
    [stop] = logged(tmp_path, "stop.log")
    assert stop["hook_event_name"] == "Stop" and stop["session_id"] == session.id
    await session.aclose()

    user_hooks({
        "UserPromptSubmit": group(hook(tmp_path, "prompt.log", code=2, stderr="no secrets")),
        "Stop": group(hook(tmp_path, "stop.log")),
    })
    session, recorder = unsandboxed_session(openai_only, workspace)
    finished = await session.prompt("paste the password")

    assert finished.reason == "error" and finished.error is not None
    assert finished.error.message == "the prompt was blocked by a UserPromptSubmit hook: no secrets"
    assert len(openai_only.server.requests) == 1  # nothing was sent
    assert session.messages == []
    assert recorder.of(RunFinished) == [finished]
    assert len(logged(tmp_path, "stop.log")) == 1  # no turn ran, so none stopped
    await session.aclose()


async def test_a_hook_past_its_timeout_is_stopped_with_what_it_started_and_the_run_goes_on(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    command = f"sleep 60 & echo $! > {pids}; sleep 60"
    user_hooks({"PreToolUse": group(command, timeout=TIME_LIMIT)})
    openai_only.reply("", [("r", "read_file", json.dumps({"path": "app.py"}))])
    openai_only.reply("Read it.")
    session, recorder = unsandboxed_session(openai_only, workspace)

    finished = await session.prompt("read app.py")

    assert finished.final_text == "Read it."
    # A guard that could not answer lets nothing through: nobody is here to say yes.
    assert openai_only.tool_results(2)["r"] == (
        f"not run: a PreToolUse hook wants a yes for this call ({command!r} timed out after "
        f"{TIME_LIMIT} s and was stopped), and nobody can give one in this run")
    assert f"timed out after {TIME_LIMIT} s and was stopped" in notices(recorder)
    assert await wait_dead(int(pids.read_text()))
    await session.aclose()


async def test_a_failing_or_missing_hook_is_a_notice_never_a_failed_run(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    user_hooks({
        "PreToolUse": group("echo broken >&2; exit 3"),
        "Stop": group(str(tmp_path / "no-such-script.sh")),
    })
    openai_only.reply("", [("r", "read_file", json.dumps({"path": "app.py"}))])
    openai_only.reply("Fine.")
    session, recorder = unsandboxed_session(openai_only, workspace)

    finished = await session.prompt("go")

    assert finished.reason == "done"
    assert openai_only.tool_results(2)["r"].startswith("not run: a PreToolUse hook wants a yes for this call")
    text = notices(recorder)
    assert "PreToolUse hook 'echo broken >&2; exit 3' failed (exit code 3): broken" in text
    assert "Stop hook" in text and "failed (exit code 127)" in text
    await session.aclose()


async def test_workspace_hooks_run_only_in_a_trusted_folder(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    write_hooks(workspace / ".neocode" / "hooks.json", {"Stop": group(hook(tmp_path, "stop.log"))})
    openai_only.reply("One.")
    session, recorder = unsandboxed_session(openai_only, workspace)
    await session.prompt("first")
    assert logged(tmp_path, "stop.log") == []
    assert "hooks in .neocode/hooks.json not run, this folder is not trusted: Stop" in notices(recorder)
    await session.aclose()

    trust(workspace)
    openai_only.reply("Two.")
    session, recorder = unsandboxed_session(openai_only, workspace)
    await session.prompt("second")
    assert len(logged(tmp_path, "stop.log")) == 1
    assert "not trusted" not in notices(recorder)
    await session.aclose()


async def test_a_broken_hooks_file_is_explained_by_file_and_line(
    openai_only: Dialect, workspace: Path
) -> None:
    path = config_dir() / "hooks.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}],\n "Nope": []}}')
    openai_only.reply("Hi.")
    session, recorder = unsandboxed_session(openai_only, workspace)
    await session.prompt("hello")
    text = notices(recorder)
    assert f"{path}: PreToolUse: 0.hooks.0.command: Field required" in text
    assert f"{path}: Nope hooks are not supported" in text
    await session.aclose()

    path.write_text('{"hooks": {')
    session, recorder = unsandboxed_session(openai_only, workspace)
    openai_only.reply("Hi.")
    await session.prompt("hello")
    assert f"{path} line 1, column 12: not valid JSON" in notices(recorder)
    await session.aclose()



async def test_interrupting_the_run_while_a_hook_runs_stops_the_hook_and_its_children(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    user_hooks({"PreToolUse": group(f"sleep 60 & echo $$ $! > {pids}; wait")})
    openai_only.reply("", [("r", "read_file", json.dumps({"path": "app.py"}))])
    session, _ = unsandboxed_session(openai_only, workspace)

    task = asyncio.create_task(session.prompt("read app.py"))
    shell, child = (int(pid) for pid in (await wait_for_file(pids)).split())
    assert session.cancel()
    finished = await asyncio.wait_for(task, PATIENCE)

    assert finished.reason == "cancelled"
    assert await wait_dead(shell) and await wait_dead(child)
    assert_transcript_valid(session.loop)
    await session.aclose()


async def test_hooks_get_no_api_keys_and_what_they_print_is_scrubbed(
    openai_only: Dialect, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    user_hooks({"Stop": group(f'echo "key=[$OPENAI_API_KEY] {API_KEY}" >&2; exit 3')})
    openai_only.reply("Done.")
    recorder = Recorder()
    session = AgentSession(
        Settings(provider="openai", openai_api_key=API_KEY), workspace, FrontEnd(listener=recorder),
        provider=openai_only.provider(),
    )
    await session.prompt("go")
    text = notices(recorder)
    assert "failed (exit code 3): key=[]" in text and API_KEY not in text
    await session.aclose()


async def test_hooks_keep_the_user_s_tokens_but_what_they_print_of_them_is_scrubbed(
    openai_only: Dialect, workspace: Path, isolated_user: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook is the user's own program: ``gh`` in it still finds GITHUB_TOKEN, but neither
    that token nor another profile's key shows in what NeoCode tells of the hook."""
    token, other = "ghp_R2d2C3poBb8Yoda4Luke5Leia6", "sk-other-profile-Rt9Xq7Lm2Gj0Ts"
    monkeypatch.setenv("GITHUB_TOKEN", token)
    config = isolated_user / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[profiles.spare]\nopenai_api_key = "{other}"\n')
    user_hooks({"Stop": group(f'echo "gh=[$GITHUB_TOKEN] spare={other}" >&2; exit 3')})
    openai_only.reply("Done.")
    recorder = Recorder()
    session = AgentSession(Settings(provider="openai", openai_api_key=API_KEY), workspace, FrontEnd(listener=recorder),
                           provider=openai_only.provider())
    await session.prompt("go")
    await session.aclose()
    assert "failed (exit code 3): gh=[[redacted]] spare=[redacted]" in notices(recorder)
