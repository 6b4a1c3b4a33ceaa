"""The pinned task list and the plan hand-off in the real app, its model the loopback HTTP
server, driven with keys and clicks as a person would."""

from __future__ import annotations

import json
from pathlib import Path

from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.tui.scenarios import SIZE
from neocode_tui.tui.screens.approval import ApprovalScreen
from neocode_tui.tui.screens.plan_review import PlanScreen
from tests.support.calls import PLAN, plan_call, todo_call
from tests.support.http_apps import http_app, reply, send
from tests.support.model_server import Response
from tests.support.reading import screen_text
from tests.support.sse import openai_turn
from tests.support.waits import screen_shows, started, wait_until

LONG = "".join(f"Line {n} of the long answer.\n\n" for n in range(1, 121))


async def test_the_task_list_stays_pinned_above_the_input_through_a_long_answer(
    model_server, workspace: Path
) -> None:
    reply(model_server, "", [todo_call()])
    body = openai_turn(LONG, delta=40)
    cut = body.index(b"Line 118")  # the answer is on screen up to here, then the model stalls
    model_server.enqueue(Response(body=body, stall=120, stall_at=cut))
    app = http_app(model_server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "add a --name flag")
        shown = await screen_shows(app, pilot, "Line 117 of the long answer.", "▾ Tasks 1 of 3 done, 1 in progress",
                                   "✔ Read app.py", "▶ Add a --name flag", "○ Run the tests",
                                   gone=["add a --name flag Line 1 of"])
        assert app.working
        lines = shown.splitlines()
        todo_row = next(n for n, line in enumerate(lines) if "▶ Add a --name flag" in line)
        prompt_row = next(n for n, line in enumerate(lines) if "╭" in line and n > todo_row)
        assert todo_row < prompt_row  # above the input, below the conversation
        styled = screen_text(app, styles=True).splitlines()
        current, pending = (next(line for line in styled if item in line)
                            for item in ("Add a --name flag", "Run the tests"))
        assert "\x1b[1;" in current and "\x1b[1;" not in pending  # the current item is bold


async def test_the_list_folds_to_one_line_when_the_agent_is_done_and_a_click_unfolds_it(
    model_server, workspace: Path
) -> None:
    reply(model_server, "", [todo_call()])
    reply(model_server, "Over to you.")
    app = http_app(model_server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "add a --name flag")
        await wait_until(lambda: not app.working and len(app.session.messages) == 4, pause=pilot.pause,
                         what="the answer")
        await screen_shows(app, pilot, "▸ Tasks 1 of 3 done, 1 in progress · now: Add a --name flag",
                           gone=["○ Run the tests"])
        await pilot.click("#todos")
        await screen_shows(app, pilot, "▾ Tasks", "✔ Read app.py", "○ Run the tests")
        await pilot.click("#todos")
        await screen_shows(app, pilot, "▸ Tasks", gone=["○ Run the tests"])
    session_id = app.session.id

    again = http_app(model_server, workspace, resume=session_id)
    async with again.run_test(size=SIZE) as pilot:
        await started(again, pilot)
        await screen_shows(again, pilot, "▸ Tasks 1 of 3 done, 1 in progress · now: Add a --name flag")


async def hand_off(app: NeoCodeApp, pilot) -> None:
    await send(app, pilot, "add a --name flag")
    await wait_until(lambda: isinstance(app.screen, PlanScreen), pause=pilot.pause, what="the plan")
    await screen_shows(app, pilot, "The plan is ready. Carry it out?", "Add --name to app.py",
                       "a yes, in auto-edit")


WRITE = ("w", "write_file", json.dumps({"path": "name.txt", "content": "x\n"}))


async def test_a_carries_the_plan_out_in_auto_edit(model_server, workspace: Path) -> None:
    reply(model_server, "", [plan_call()])
    reply(model_server, "", [WRITE])
    reply(model_server, "Done.")
    app = http_app(model_server, workspace, approval="plan")
    async with app.run_test(size=SIZE) as pilot:
        await hand_off(app, pilot)
        await pilot.press("a")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the plan carried out")
        await screen_shows(app, pilot, "plan accepted: carrying it out in auto-edit", "auto-edit")
        assert app.session.approval == "auto-edit" and app.status.approval == "auto-edit"
    assert (workspace / "name.txt").read_text() == "x\n"  # written without a question
    assert "The mode is now auto-edit" in json.dumps(model_server.requests[1].json["messages"])


async def test_y_carries_the_plan_out_asking_before_each_change(model_server, workspace: Path) -> None:
    reply(model_server, "", [plan_call()])
    reply(model_server, "", [WRITE])
    reply(model_server, "Done.")
    app = http_app(model_server, workspace, approval="plan")
    async with app.run_test(size=SIZE) as pilot:
        await hand_off(app, pilot)
        await pilot.press("y")
        await wait_until(lambda: isinstance(app.screen, ApprovalScreen), pause=pilot.pause,
                         what="the write asked about")
        assert not (workspace / "name.txt").exists()
        await pilot.press("y")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the answer")
        assert app.status.approval == "ask"
    assert (workspace / "name.txt").read_text() == "x\n"


async def test_n_keeps_planning_and_the_feedback_reaches_the_model(model_server, workspace: Path) -> None:
    reply(model_server, "", [plan_call()])
    reply(model_server, "I will add the README to the plan.")
    app = http_app(model_server, workspace, approval="plan")
    async with app.run_test(size=SIZE) as pilot:
        await hand_off(app, pilot)
        await pilot.press("n", *"update the README too", "enter")
        await wait_until(lambda: not app.working, pause=pilot.pause, what="the answer")
        await screen_shows(app, pilot, "kept planning: update the README too",
                           "I will add the README to the plan.")
        assert app.session.approval == "plan"
    results = [m["content"] for m in model_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert "keep planning" in results[0] and "update the README too" in results[0]
    assert PLAN.splitlines()[0] in json.dumps(model_server.requests[1].json["messages"])


async def test_what_the_model_puts_in_the_list_or_the_plan_reaches_the_terminal_escaped(
    model_server, workspace: Path
) -> None:
    from tests.support.reading import terminal_output

    hostile = [{"content": "Deploy\x1b[2J\x1b]0;pwned\x07 now\nsecond line", "status": "in_progress"}]
    reply(model_server, "", [todo_call("t", hostile)])
    reply(model_server, "", [plan_call("p", "1. Wipe\x1b[2J the screen")])
    app = http_app(model_server, workspace, approval="plan")
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "go")
        await wait_until(lambda: isinstance(app.screen, PlanScreen), pause=pilot.pause, what="the plan")
        await screen_shows(app, pilot, "Deploy", "now second line", "Wipe")
        drawn = terminal_output(app)
        assert "\x1b[2J" not in drawn and "\x1b]0;pwned" not in drawn


async def test_the_task_list_call_is_one_short_line_in_the_conversation_never_its_raw_items(
    model_server, workspace: Path
) -> None:
    reply(model_server, "Planning.", [todo_call()])
    reply(model_server, "", [("c2", "todo_write", json.dumps({"todos": [{"content": "x", "status": "maybe"}]}))])
    reply(model_server, "On it.")
    app = http_app(model_server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "add a --name flag")
        shown = await screen_shows(app, pilot, "☰ task list: 1 of 3 done, 1 in progress", "On it.",
                                   "✗ the task list was not updated: not run: invalid arguments for todo_write")
        assert "todo_write " not in shown and "todos:" not in shown and "'content'" not in shown
        assert '"content"' not in shown and "╭─  todo_write" not in shown, "no panel of its items"
