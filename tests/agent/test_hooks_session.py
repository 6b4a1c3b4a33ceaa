"""SessionStart, SessionEnd, PreCompact, Notification and PermissionRequest hooks as a user
writes them: real scripts run by a real session against the loopback model, on Claude
Code's contract (their input on stdin, exit 2 and JSON decisions honoured)."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.agent.loop_events import ApprovalDecision, ApprovalRequested, PlanDecision, PlanProposed
from neocode_tui.trust import trust
from tests.support.calls import plan_call
from tests.support.dialects import Dialect
from tests.support.hooks import group, hook, logged, user_hooks, write_hooks
from tests.support.processes import TIME_LIMIT
from tests.support.recorder import notices
from tests.support.sessions import unsandboxed_session
from tests.support.waits import wait_for_file

WRITE = ("w", "write_file", json.dumps({"path": "new.py", "content": "x = 1\n"}))


def user_messages(dialect: Dialect, number: int) -> list[str]:
    return [m["content"] for m in dialect.request(number)["messages"] if m["role"] == "user"]


async def test_session_start_adds_its_context_to_the_first_prompt_of_each_start(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    context = json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                 "additionalContext": "Branch: main"}})
    user_hooks({"SessionStart": [*group(hook(tmp_path, "start.log", stdout="Sprint 12"), "startup|clear"),
                                 *group(hook(tmp_path, "resume.log", stdout=context), "resume")]})
    for text in ("One.", "Two.", "Three.", "Four."):
        openai_only.reply(text)
    session, _ = unsandboxed_session(openai_only, workspace)
    await session.prompt("first")
    await session.prompt("second")

    assert user_messages(openai_only, 1) == ["first\n\n<session-start-hook>\nSprint 12\n</session-start-hook>"]
    assert user_messages(openai_only, 2)[-1] == "second"  # the session had started already
    [event] = logged(tmp_path, "start.log")
    assert event == {"session_id": session.id, "transcript_path": str(session.transcript),
                     "cwd": str(workspace), "permission_mode": "bypassPermissions",
                     "hook_event_name": "SessionStart", "source": "startup", "model": "gpt-test"}
    session_id = session.id
    await session.aclose()

    again, _ = unsandboxed_session(openai_only, workspace)
    again.resume(session_id)
    await again.prompt("third")
    assert user_messages(openai_only, 3)[-1] == "third\n\n<session-start-hook>\nBranch: main\n</session-start-hook>"
    assert [e["source"] for e in logged(tmp_path, "resume.log")] == ["resume"]  # the matcher chose

    again.clear()
    await again.prompt("fourth")
    assert user_messages(openai_only, 4) == ["fourth\n\n<session-start-hook>\nSprint 12\n</session-start-hook>"]
    assert [e["source"] for e in logged(tmp_path, "start.log")] == ["startup", "clear"]
    await again.aclose()


async def test_session_end_runs_when_a_session_is_cleared_or_closed_and_only_if_it_started(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    user_hooks({"SessionEnd": group(hook(tmp_path, "end.log"))})
    openai_only.reply("One.")
    openai_only.reply("Two.")
    unused, _ = unsandboxed_session(openai_only, workspace)
    await unused.aclose()
    assert logged(tmp_path, "end.log") == []  # never prompted: no session started or ended

    session, _ = unsandboxed_session(openai_only, workspace)
    await session.prompt("first")
    first_id = session.id
    session.clear()
    await session.prompt("second")
    await session.aclose("prompt_input_exit")
    ended = logged(tmp_path, "end.log")
    assert [(e["reason"], e["session_id"]) for e in ended] == [("clear", first_id), ("prompt_input_exit", session.id)]
    assert ended[0]["hook_event_name"] == "SessionEnd"


async def test_pre_compact_hears_the_trigger_and_exit_2_keeps_the_history_whole(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    user_hooks({"PreCompact": group(hook(tmp_path, "compact.log", code=2, stderr="keep it all"), "manual")})
    openai_only.reply("Answer.")
    session, recorder = unsandboxed_session(openai_only, workspace)
    await session.prompt("question")
    before = list(session.messages)

    assert await session.compact("keep the API names") is False
    assert session.messages == before and len(openai_only.server.requests) == 1  # no summary asked
    assert "not compacted: a PreCompact hook blocked it: keep it all" in notices(recorder)
    [event] = logged(tmp_path, "compact.log")
    assert (event["hook_event_name"], event["trigger"], event["custom_instructions"]) == (
        "PreCompact", "manual", "keep the API names")
    await session.aclose()

    user_hooks({"PreCompact": group(hook(tmp_path, "allowed.log")),
                "SessionStart": group(hook(tmp_path, "start.log", stdout="re-read NOTES.md"), "compact")})
    openai_only.reply("Answer.")
    openai_only.reply("The user asked a question; it was answered.")
    openai_only.reply("Next.")
    session, _ = unsandboxed_session(openai_only, workspace)
    await session.prompt("question")
    assert await session.compact() is True
    await session.prompt("go on")
    assert [e["trigger"] for e in logged(tmp_path, "allowed.log")] == ["manual"]
    assert user_messages(openai_only, 4)[-1].endswith("<session-start-hook>\nre-read NOTES.md\n</session-start-hook>")
    await session.aclose()


async def test_a_permission_request_hook_answers_for_the_user_and_a_notification_tells_them_otherwise(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    allow = json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                               "decision": {"behavior": "allow"}}})
    deny = json.dumps({"hookSpecificOutput": {"decision": {"behavior": "deny", "message": "no shell"}}})
    user_hooks({
        "PermissionRequest": [*group(hook(tmp_path, "allow.log", stdout=allow), "Write"),
                              *group(hook(tmp_path, "deny.log", stdout=deny), "bash")],
        "Notification": group(hook(tmp_path, "notify.log")),
    })
    openai_only.reply("", [WRITE])
    openai_only.reply("", [("b", "bash", json.dumps({"command": "touch ran.txt"}))])
    openai_only.reply("", [("e", "edit_file", json.dumps(
        {"path": "app.py", "old_string": "'hello'", "new_string": "'hi'"}))])
    openai_only.reply("Done.")
    asked: list[str] = []

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        asked.append(request.name)
        return ApprovalDecision(verdict="yes")

    session, _ = unsandboxed_session(openai_only, workspace, approval="ask", approver=approver)
    await session.prompt("write, run, edit")

    assert (workspace / "new.py").read_text() == "x = 1\n" and not (workspace / "ran.txt").exists()
    refused = "the user denied this call: a PermissionRequest hook refused it: no shell"
    assert openai_only.tool_results(3)["b"] == refused
    assert asked == ["edit_file"]  # only the call no hook decided reached the user
    [event] = logged(tmp_path, "allow.log")
    assert (event["hook_event_name"], event["tool_name"], event["tool_input"]) == (
        "PermissionRequest", "Write", {"file_path": str(workspace / "new.py"), "content": "x = 1\n"})
    assert event["permission_mode"] == "default"
    await wait_for_file(tmp_path / "notify.log")
    [told] = logged(tmp_path, "notify.log")
    assert (told["hook_event_name"], told["notification_type"], told["message"]) == (
        "Notification", "permission_prompt", "NeoCode needs your permission to use edit_file")
    await session.aclose()


async def test_exit_2_from_a_permission_request_hook_denies_and_a_plan_question_notifies(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    user_hooks({"PermissionRequest": group(hook(tmp_path, "deny.log", code=2, stderr="read-only day")),
                "Notification": group(hook(tmp_path, "notify.log"))})
    openai_only.reply("", [plan_call()])
    openai_only.reply("", [WRITE])
    openai_only.reply("Could not write.")

    async def never(request: ApprovalRequested) -> ApprovalDecision:
        raise AssertionError("the hook answered: nobody is asked")

    async def carry_out(_: PlanProposed) -> PlanDecision:
        return PlanDecision(mode="ask")

    session, _ = unsandboxed_session(openai_only, workspace, approval="plan", approver=never, plan_review=carry_out)
    await session.prompt("plan it")

    assert openai_only.tool_results(3)["w"].endswith("a PermissionRequest hook refused it: read-only day")
    await wait_for_file(tmp_path / "notify.log")
    assert logged(tmp_path, "notify.log")[0]["message"] == "NeoCode has a plan for you to review"
    await session.aclose()


async def test_session_hooks_keep_the_trust_rule_and_the_time_limit(
    openai_only: Dialect, workspace: Path, tmp_path: Path
) -> None:
    write_hooks(workspace / ".neocode" / "hooks.json",
                {"SessionStart": group(hook(tmp_path, "local.log", stdout="from the repo"))})
    user_hooks({"SessionStart": group("sleep 60", timeout=TIME_LIMIT)})
    openai_only.reply("One.")
    session, recorder = unsandboxed_session(openai_only, workspace)
    await session.prompt("first")

    assert user_messages(openai_only, 1) == ["first"]  # the slow hook added nothing, the repo's never ran
    assert logged(tmp_path, "local.log") == []
    told = notices(recorder)
    assert f"SessionStart hook 'sleep 60' timed out after {TIME_LIMIT} s" in told
    assert "not run" in told and "SessionStart" in told
    await session.aclose()

    trust(workspace)
    openai_only.reply("Two.")
    user_hooks({})
    trusted, _ = unsandboxed_session(openai_only, workspace)
    await trusted.prompt("second")
    assert user_messages(openai_only, 2) == ["second\n\n<session-start-hook>\nfrom the repo\n</session-start-hook>"]
    await trusted.aclose()
