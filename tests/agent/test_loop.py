"""The agent loop end to end: real HTTP to a loopback model, real tools in a tmp folder."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from neocode_tui.agent.loop import FINAL_ANSWER_REQUEST, TURN_LIMIT_RESULT, AgentLoop
from neocode_tui.agent.loop_events import (
    ApprovalDecision,
    ApprovalRequested,
    Notice,
    RunFinished,
    Streamed,
    ToolFinished,
    ToolOutputDelta,
    ToolStarted,
    TurnStarted,
)
from neocode_tui.agent.store.session_store import SessionStore
from neocode_tui.agent.transcript import INTERRUPTED, STOPPED
from neocode_tui.events import TextDelta, ToolCallStart
from neocode_tui.known_secrets import Secrets
from neocode_tui.redact import REDACTED
from tests.support.dialects import API_KEY, Dialect
from tests.support.model_server import Response
from tests.support.processes import wait_dead
from tests.support.recorder import Recorder
from tests.support.sse import openai_sse
from tests.support.transcripts import assert_transcript_valid
from tests.support.waits import PATIENCE, wait_for_file


def make_loop(dialect: Dialect, workspace: Path, **options) -> tuple[AgentLoop, Recorder]:
    recorder = Recorder()
    options.setdefault("approval", "full-auto")
    return AgentLoop(dialect.provider(), workspace, sink=recorder, **options), recorder


async def test_read_edit_run_then_answer(
    dialect: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    (workspace / "AGENTS.md").write_text("Always run the program after editing.\n")
    user_config = isolated_dirs / "config"
    user_config.mkdir(parents=True)
    (user_config / "AGENTS.md").write_text("Answer in one sentence.\n")
    dialect.reply("Let me look.", [("c1", "read_file", '{"path": "app.py"}')])
    dialect.reply("", [("c2", "edit_file", json.dumps(
        {"path": "app.py", "old_string": "'hello'", "new_string": "'hello, world'"}))])
    dialect.reply("Checking.", [("c3", "bash", '{"command": "python3 app.py"}')])
    dialect.reply("Done: `greet()` now says hello, world.")
    loop, recorder = make_loop(dialect, workspace)

    finished = await loop.run("make greet say hello, world")

    assert finished.reason == "done"
    assert finished.final_text == "Done: `greet()` now says hello, world."
    assert (workspace / "app.py").read_text().startswith("def greet():\n    return 'hello, world'\n")
    assert "Always run the program after editing." in dialect.system(1)
    assert "Answer in one sentence." in dialect.system(1)
    assert dialect.system(1) == dialect.system(4)
    assert dialect.tool_results(2)["c1"].startswith("     1\tdef greet():")
    edit_result = dialect.tool_results(3)["c2"]
    assert "-    return 'hello'\n+    return 'hello, world'\n" in edit_result
    assert dialect.tool_results(4)["c3"] == "hello, world"
    assert [e.name for e in recorder.of(ToolStarted)] == ["read_file", "edit_file", "bash"]
    live = recorder.of(ToolOutputDelta)
    assert "".join(e.text for e in live) == "hello, world\n"
    assert {(e.call_id, e.turn) for e in live} == {("c3", 3)}
    assert recorder.events.index(recorder.of(ToolStarted)[2]) < recorder.events.index(live[0])
    assert recorder.events.index(live[-1]) < recorder.events.index(recorder.of(ToolFinished)[2])
    finished_events = recorder.of(ToolFinished)
    assert [e.status for e in finished_events] == ["ok", "ok", "ok"]
    assert finished_events[1].diff and "+    return 'hello, world'" in finished_events[1].diff
    assert [e.turn for e in recorder.of(TurnStarted)] == [1, 2, 3, 4]
    assert recorder.events[-1] == finished
    assert finished.usage.input_tokens == 40 and finished.usage.output_tokens == 20
    assert_transcript_valid(loop)


async def test_parallel_calls_run_in_order_and_all_results_go_back(
    dialect: Dialect, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("remember\n")
    dialect.reply("", [
        ("p1", "read_file", '{"path": "notes.txt"}'),
        ("p2", "glob", '{"pattern": "*.py"}'),
        ("p3", "write_file", '{"path": "out.txt", "content": "written\\n"}'),
    ])
    dialect.reply("All three done.")
    loop, recorder = make_loop(dialect, workspace)

    await loop.run("do three things")

    results = dialect.tool_results(2)
    assert list(results) == ["p1", "p2", "p3"]
    assert results["p1"] == "     1\tremember"
    assert results["p2"] == "app.py"
    assert results["p3"] == "created out.txt (1 lines)"
    assert (workspace / "out.txt").read_text() == "written\n"
    assert [e.index for e in recorder.of(ToolFinished)] == [0, 1, 2]


async def test_malformed_arguments_and_unknown_tools_are_reported_not_run(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("", [
        ("m1", "write_file", '{"path": "app.py", "content": "gone'),
        ("m2", "deploy", '{"target": "prod"}'),
        ("m3", "read_file", '{"file": "app.py"}'),
    ])
    dialect.reply("Sorry, let me retry properly.")
    loop, recorder = make_loop(dialect, workspace)

    finished = await loop.run("break things")

    results = dialect.tool_results(2)
    assert results["m1"].startswith("not run: the arguments are not valid JSON")
    assert results["m2"].startswith("not run: there is no tool named 'deploy'; the tools are read_file")
    assert "path: Field required" in results["m3"] and "file: Extra inputs" in results["m3"]
    assert (workspace / "app.py").read_text().startswith("def greet()")
    assert recorder.of(ToolStarted) == []
    assert all(e.is_error and e.status == "error" for e in recorder.of(ToolFinished))
    assert finished.reason == "done"
    assert_transcript_valid(loop)


async def test_paths_outside_the_workspace_are_refused_to_the_model(
    dialect: Dialect, workspace: Path
) -> None:
    (workspace.parent / "secret.txt").write_text("the secret\n")
    (workspace / "link").symlink_to(workspace.parent / "secret.txt")
    dialect.reply("", [
        ("e1", "read_file", '{"path": "../secret.txt"}'),
        ("e2", "read_file", json.dumps({"path": str(workspace.parent / "secret.txt")})),
        ("e3", "read_file", '{"path": "link"}'),
        ("e4", "write_file", '{"path": "../planted.txt", "content": "x"}'),
    ])
    dialect.reply("I cannot reach that.")
    loop, _ = make_loop(dialect, workspace)

    await loop.run("read the secret")

    results = dialect.tool_results(2)
    assert "'../secret.txt' is outside the workspace" in results["e1"]
    assert "is outside the workspace" in results["e2"]
    assert "'link' is a symlink that leads outside the workspace" in results["e3"]
    assert "is outside the workspace" in results["e4"]
    assert not any("the secret" in text for text in results.values())
    assert not (workspace.parent / "planted.txt").exists()


async def test_turn_limit_asks_for_a_final_answer_and_runs_no_more_tools(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("", [("t1", "list_dir", "{}")])
    dialect.reply("", [("t2", "list_dir", "{}")])
    dialect.reply("I looked twice; the folder holds app.py.",
                  [("t3", "bash", '{"command": "touch more.txt"}')])
    loop, recorder = make_loop(dialect, workspace, max_turns=2)

    finished = await loop.run("explore forever")

    assert finished.reason == "turn_limit"
    assert finished.final_text == "I looked twice; the folder holds app.py."
    assert len(dialect.server.requests) == 3
    assert FINAL_ANSWER_REQUEST in json.dumps(dialect.request(3)["messages"][-1])
    # The last request still defines the tools (the history has calls) but forbids calling them.
    assert dialect.request(3)["tools"]
    forbid = "none" if dialect.name == "openai" else {"type": "none"}
    assert dialect.request(3)["tool_choice"] == forbid
    assert "tool_choice" not in dialect.request(2)
    assert not (workspace / "more.txt").exists()
    assert [(e.call_id, e.status) for e in recorder.of(ToolFinished)][-1] == ("t3", "skipped")
    assert loop.messages[-1].content == TURN_LIMIT_RESULT
    assert len(recorder.of(TurnStarted)) == 3
    assert_transcript_valid(loop)


async def test_cancel_while_streaming_keeps_what_was_shown(dialect: Dialect, workspace: Path) -> None:
    arguments = json.dumps({"path": "app.py", "padding": "x" * 400})
    body = dialect.turn("Partial answer. ", [("x1", "read_file", arguments)])
    # The body stops for good after the event that starts the call: the cancel lands
    # mid-stream however slow the machine.
    during_the_call = body.index(b"\n\n", body.index(b"read_file")) + 2
    dialect.server.enqueue(Response(body=body, chunk_sizes=40, delay=0.02, stall=3600, stall_at=during_the_call))
    loop, recorder = make_loop(dialect, workspace)
    task = asyncio.create_task(loop.run("go"))
    while not any(isinstance(e, Streamed) and isinstance(e.event, ToolCallStart)
                  for e in recorder.events):
        await asyncio.sleep(0.01)

    assert loop.cancel()
    finished = await task

    assert finished.reason == "cancelled" and recorder.events[-1] == finished
    assert not task.cancelled()
    shown = "".join(e.event.text for e in recorder.of(Streamed) if isinstance(e.event, TextDelta))
    assert shown == "Partial answer. "
    assert [m.role for m in loop.messages] == ["user", "assistant", "tool"]
    assert loop.messages[1].content == shown
    assert [call.id for call in loop.messages[1].tool_calls] == ["x1"]
    assert loop.messages[2].content == INTERRUPTED
    assert recorder.of(ToolStarted) == []

    dialect.reply("Fresh start.")
    again = await loop.run("try again")
    assert again.reason == "done" and again.final_text == "Fresh start."
    assert_transcript_valid(loop)


async def test_cancel_during_bash_kills_it_and_closes_every_call(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("", [
        ("b1", "bash", '{"command": "sleep 60 & echo $! > child.pid; sleep 60"}'),
        ("b2", "read_file", '{"path": "app.py"}'),
    ])
    loop, recorder = make_loop(dialect, workspace)
    task = asyncio.create_task(loop.run("run the slow thing"))
    child = int(await wait_for_file(workspace / "child.pid"))

    loop.cancel()
    finished = await task

    assert finished.reason == "cancelled"
    assert await wait_dead(child)
    results = {m.tool_call_id: m.content for m in loop.messages if m.role == "tool"}
    assert results == {"b1": STOPPED, "b2": INTERRUPTED}
    assert [(e.call_id, e.status) for e in recorder.of(ToolFinished)] == [
        ("b1", "interrupted"), ("b2", "interrupted"),
    ]
    dialect.reply("ok")
    await loop.run("never mind")
    assert dialect.tool_results(2) == results


async def test_approvals_yes_no_and_for_the_session(dialect: Dialect, workspace: Path) -> None:
    dialect.reply("", [("a1", "write_file", '{"path": "one.txt", "content": "1\\n"}')])
    dialect.reply("", [("a2", "bash", '{"command": "echo ran > ran.txt"}')])
    dialect.reply("", [("a3", "edit_file", json.dumps(
        {"path": "app.py", "old_string": "'hello'", "new_string": "'hi'"}))])
    dialect.reply("", [("a4", "edit_file", json.dumps(
        {"path": "app.py", "old_string": "'hi'", "new_string": "'hey'"}))])
    dialect.reply("Finished.")
    asked: list[ApprovalRequested] = []
    answers = iter([
        ApprovalDecision(verdict="yes"),
        ApprovalDecision(verdict="no", reason="no shell commands today"),
        ApprovalDecision(verdict="session"),
    ])

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        asked.append(request)
        return next(answers)

    loop, recorder = make_loop(dialect, workspace, approval="ask", approver=approver)
    await loop.run("change things")

    assert [request.name for request in asked] == ["write_file", "bash", "edit_file"]
    assert asked[0].summary == "write one.txt (1 lines)" and "+1" in (asked[0].diff or "")
    assert asked[1].command == "echo ran > ran.txt"
    assert "-    return 'hello'\n+    return 'hi'\n" in (asked[2].diff or "")
    assert (workspace / "one.txt").read_text() == "1\n"
    assert not (workspace / "ran.txt").exists()
    assert dialect.tool_results(3)["a2"] == "the user denied this call: no shell commands today"
    assert "return 'hey'" in (workspace / "app.py").read_text()
    assert loop.gate.allowed_for_session == {"edit_file"}
    assert [e.status for e in recorder.of(ToolFinished)] == ["ok", "denied", "ok", "ok"]


async def test_auto_edit_asks_only_for_commands_and_can_change_at_run_time(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("", [("d1", "write_file", '{"path": "a.txt", "content": "a"}')])
    dialect.reply("", [("d2", "bash", '{"command": "echo hi"}')])
    dialect.reply("Done.")
    asked: list[str] = []

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        asked.append(request.name)
        loop.approval = "full-auto"  # the user switches mode while the run goes on
        return ApprovalDecision(verdict="yes")

    loop, _ = make_loop(dialect, workspace, approval="auto-edit", approver=approver)
    await loop.run("go")
    assert asked == ["bash"]
    assert (workspace / "a.txt").read_text() == "a"
    assert loop.approval == "full-auto"


async def test_without_an_approver_calls_that_need_one_are_refused(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("", [
        ("h1", "write_file", '{"path": "new.txt", "content": "x"}'),
        ("h2", "bash", '{"command": "touch made.txt"}'),
        ("h3", "read_file", '{"path": "app.py"}'),
    ])
    dialect.reply("I could not write.")
    loop, _ = make_loop(dialect, workspace, approval="ask")

    await loop.run("write")

    results = dialect.tool_results(2)
    assert results["h1"] == (
        "not run: write_file needs approval and nobody can approve it in this run "
        "(rerun with --approval auto-edit or full-auto)"
    )
    assert "rerun with --approval full-auto" in results["h2"]
    assert results["h3"].startswith("     1\tdef greet")
    assert not (workspace / "new.txt").exists() and not (workspace / "made.txt").exists()


async def test_an_edit_that_cannot_apply_fails_without_asking(dialect: Dialect, workspace: Path) -> None:
    dialect.reply("", [("f1", "edit_file", json.dumps(
        {"path": "app.py", "old_string": "missing text", "new_string": "x"}))])
    dialect.reply("Let me read first.")

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        raise AssertionError("nobody should be asked about an edit that cannot apply")

    loop, _ = make_loop(dialect, workspace, approval="ask", approver=approver)
    await loop.run("edit")
    assert dialect.tool_results(2)["f1"].startswith("old_string was not found in app.py")


async def test_a_provider_error_ends_the_run_with_a_clear_error(dialect: Dialect, workspace: Path) -> None:
    dialect.server.enqueue(Response(status=401, headers={"content-type": "application/json"},
                                    body=b'{"error": {"message": "invalid x-api-key"}}'))
    loop, recorder = make_loop(dialect, workspace)

    finished = await loop.run("hello")

    assert finished.reason == "error"
    assert finished.error is not None and finished.error.kind == "auth"
    assert "sk-agent-test" not in json.dumps([e.model_dump(mode="json") for e in recorder.events])
    assert [m.role for m in loop.messages] == ["user"]


async def test_a_stream_cut_mid_call_never_runs_it(dialect: Dialect, workspace: Path) -> None:
    body = dialect.turn("Writing it.", [("k1", "write_file", '{"path": "cut.txt", "content": "x"}')])
    dialect.server.enqueue(Response(body=body, cut_after=len(body) - 60))
    loop, recorder = make_loop(dialect, workspace)

    finished = await loop.run("write")

    assert finished.reason == "error"
    assert not (workspace / "cut.txt").exists()
    assert recorder.of(ToolStarted) == []
    assert_transcript_valid(loop)


async def test_a_nameless_call_is_dropped_with_a_note_to_the_model(
    openai_only: Dialect, model_server, workspace: Path
) -> None:
    dialect = openai_only
    base = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    model_server.enqueue(Response(body=openai_sse([
        chunk({"role": "assistant", "content": ""}),
        chunk({"tool_calls": [{"index": 0, "id": "nameless", "type": "function",
                               "function": {"arguments": '{"path": "app.py"}'}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "named", "type": "function",
                               "function": {"name": "list_dir", "arguments": "{}"}}]}),
        chunk({}, "tool_calls"),
    ]), chunk_sizes=11))
    dialect.reply("Understood.")
    loop, recorder = make_loop(dialect, workspace)

    finished = await loop.run("go")

    assert finished.reason == "done"
    sent = dialect.request(2)["messages"]
    assert [m["tool_call_id"] for m in sent if m["role"] == "tool"] == ["named"]
    assert sent[-1]["role"] == "user"
    assert sent[-1]["content"].startswith("1 tool call(s) in your last message had no tool name")
    assert [n.level for n in recorder.of(Notice)] == ["warning"]


async def test_cancel_while_waiting_for_approval(dialect: Dialect, workspace: Path) -> None:
    dialect.reply("", [("w1", "write_file", '{"path": "a.txt", "content": "a"}')])
    waiting = asyncio.Event()

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        waiting.set()
        await asyncio.Event().wait()  # the user never answers
        raise AssertionError("unreachable")

    loop, recorder = make_loop(dialect, workspace, approval="ask", approver=approver)
    task = asyncio.create_task(loop.run("write"))
    await waiting.wait()
    loop.cancel()
    finished = await task

    assert finished.reason == "cancelled"
    assert not (workspace / "a.txt").exists()
    assert [(e.call_id, e.status) for e in recorder.of(ToolFinished)] == [("w1", "interrupted")]
    assert_transcript_valid(loop)


async def test_an_answer_cut_at_the_token_limit_is_flagged(dialect: Dialect, workspace: Path) -> None:
    finish = {"finish": "length"} if dialect.name == "openai" else {"stop_reason": "max_tokens"}
    dialect.server.enqueue(Response(body=dialect.turn("A long answer that", **finish)))
    loop, recorder = make_loop(dialect, workspace)

    finished = await loop.run("explain everything")

    assert finished.reason == "done" and finished.final_text == "A long answer that"
    assert [n.message for n in recorder.of(Notice)] == [
        "the answer was cut off at the model's output token limit"
    ]


async def test_the_api_key_in_a_workspace_file_never_leaves_a_tool(
    dialect: Dialect, workspace: Path
) -> None:
    (workspace / ".env").write_text(f"MODE=dev\nOPENAI_API_KEY={API_KEY}\n")
    dialect.reply("", [
        ("k1", "read_file", '{"path": ".env"}'),
        ("k2", "bash", '{"command": "cat .env"}'),
        ("k3", "edit_file", '{"path": ".env", "old_string": "MODE=dev", "new_string": "MODE=prod"}'),
    ])
    dialect.reply("Done.")
    previews: list[str | None] = []

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        previews.append(request.diff)
        return ApprovalDecision(verdict="yes")

    store = SessionStore.create(workspace, provider=dialect.name, model="m")
    loop, recorder = make_loop(dialect, workspace, approval="ask", approver=approver,
                               session=store, secrets=Secrets(keys=[API_KEY]))
    loop.gate.allowed_for_session.add("bash: cat …")
    await loop.run("show me the settings")
    store.close()

    results = dialect.tool_results(2)
    assert f"OPENAI_API_KEY={REDACTED}" in results["k1"] and f"OPENAI_API_KEY={REDACTED}" in results["k2"]
    everywhere = [
        json.dumps([r.json for r in dialect.server.requests]),
        json.dumps([e.model_dump(mode="json") for e in recorder.events]),
        store.path.read_text(),
    ]
    assert not any(API_KEY in text for text in everywhere)
    assert (workspace / ".env").read_text() == f"MODE=prod\nOPENAI_API_KEY={API_KEY}\n"
    [preview] = previews  # the edit's: bash was allowed for the session, reads never ask
    assert preview is not None and f" OPENAI_API_KEY={REDACTED}\n" in preview
    assert any(e.type == "tool_output_delta" and REDACTED in e.text for e in recorder.events)


async def test_a_timeout_around_a_run_raises_timeout_error_and_keeps_the_transcript_valid(
    dialect: Dialect, workspace: Path
) -> None:
    dialect.reply("", [("s1", "bash", '{"command": "echo started > started.txt; sleep 30"}')])
    loop, recorder = make_loop(dialect, workspace, approval="full-auto")

    async def expire_once_the_command_runs(deadline: asyncio.Timeout) -> None:
        await wait_for_file(workspace / "started.txt")
        deadline.reschedule(asyncio.get_running_loop().time())

    with pytest.raises(TimeoutError):
        async with asyncio.timeout(None) as deadline:
            watcher = asyncio.create_task(expire_once_the_command_runs(deadline))
            await loop.run("run the slow thing")
    await watcher

    assert not loop.running
    [finished] = recorder.of(RunFinished)
    assert finished.reason == "cancelled"
    assert [(m.tool_call_id, m.content) for m in loop.messages if m.role == "tool"] == [
        ("s1", STOPPED)
    ]
    assert_transcript_valid(loop)


async def test_yes_for_the_session_on_bash_covers_that_program_only(
    openai_only: Dialect, workspace: Path
) -> None:
    commands = ["pytest -q", "pytest -x tests", "pytest -q; touch pwned", "npm test", "npm publish"]
    for number, command in enumerate(commands):
        openai_only.reply("", [(f"b{number}", "bash", json.dumps({"command": command}))])
    openai_only.reply("done")
    asked: list[str] = []

    async def approver(request: ApprovalRequested) -> ApprovalDecision:
        asked.append(request.session_scope)
        return ApprovalDecision(verdict="session" if request.command in ("pytest -q", "npm test") else "no")

    loop, _ = make_loop(openai_only, workspace, approval="auto-edit", approver=approver)
    await loop.run("test it")

    # pytest again: allowed; with a shell operator: asked (and denied); npm publish: asked.
    assert asked == ["bash: pytest …", "bash: pytest -q; touch pwned", "bash: npm test …",
                     "bash: npm publish …"]
    assert not (workspace / "pwned").exists()


async def test_one_endless_line_of_output_costs_what_many_lines_cost(
    openai_only: Dialect, workspace: Path, isolated_dirs: Path
) -> None:
    """200 MB on one line: each line passed on live is cut to LINE_CAP characters with a
    marker, and the run takes about as long as 200 MB of short lines (it took minutes and
    grew without bound when the open line was kept whole and searched again per chunk)."""
    from neocode_tui.live_output import LINE_CAP

    size = 200_000_000
    command = f"head -c {size} /dev/zero | tr '\\0' a; echo; echo after"
    openai_only.reply("", [("c1", "bash", json.dumps({"command": command, "timeout": 600}))])
    openai_only.reply("Done.")
    loop, recorder = make_loop(openai_only, workspace)

    async with asyncio.timeout(PATIENCE):
        finished = await loop.run("print a lot")

    assert finished.reason == "done"
    live = "".join(e.text for e in recorder.of(ToolOutputDelta))
    assert live == "a" * LINE_CAP + f" [… {size - LINE_CAP:,} more characters of this line]\nafter\n"
    result = openai_only.tool_results(2)["c1"]
    assert len(result) < 40_000 and "bytes of output cut" in result and result.endswith("a\nafter")
