"""``neocode_tui.sdk`` as docs/sdk.md shows it: the page's example run as a program of its
own, against the scripted model over real HTTP, in a real folder."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

from tests.support.calls import ask_call
from tests.support.dialects import Dialect
from tests.support.docs_pages import DOCS
from tests.support.headless import headless_env
from tests.support.waits import PATIENCE


def example() -> str:
    page = (DOCS / "sdk.md").read_text(encoding="utf-8")
    found = re.search(r"```python\n(.*?)```", page, re.DOTALL)
    assert found is not None
    return found.group(1)


async def program_lines(program: str, dialect: Dialect, workspace: Path) -> list[str]:
    """What ``program``, run with Python in ``workspace`` against ``dialect``, printed; it
    must exit 0."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", program, cwd=workspace, env=headless_env(dialect),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), PATIENCE)
    assert process.returncode == 0, err.decode()
    return out.decode().splitlines()


async def test_the_documented_example_writes_the_file_it_was_allowed_to_and_resumes(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [("w1", "write_file", json.dumps({"path": "hello.txt", "content": "hello\n"}))])
    openai_only.reply("hello.txt says hello.")
    openai_only.reply("Nothing more to do.")
    program = example() + "\nimport sys\nprint('textual loaded:', 'textual' in sys.modules)\n"
    lines = await program_lines(program, openai_only, workspace)
    assert lines == [
        "asked: write hello.txt (1 lines)",
        "ran: write_file ok",
        "answer: hello.txt says hello.",
        "again: Nothing more to do.",
        "textual loaded: False",
    ]
    assert (workspace / "hello.txt").read_text() == "hello\n"
    # Resumed: the third request carries the first prompt and its answer.
    said = [m["content"] for m in openai_only.request(3)["messages"] if m["role"] in ("user", "assistant")]
    assert "Write hello.txt saying hello" in said and "hello.txt says hello." in said


QUESTIONS_PROGRAM = """
import asyncio
from neocode_tui.sdk import Questions, Session

async def main():
    async with await Session.start(".") as session:
        run = session.send("plan the app")
        async for item in run:
            if isinstance(item, Questions):
                print("asked:", " | ".join(q.question for q in item.questions))
                item.answer({"Which database should the app use?": "SQLite",
                             "Which parts should come first?": ["Sign-in", "Export"]})
        print("answer:", (await run.wait()).final_text)
        run = session.send("and again")
        async for item in run:
            if isinstance(item, Questions):
                item.close()
        print("closed:", (await run.wait()).final_text)

asyncio.run(main())
"""


async def test_a_program_answers_the_model_s_questions_and_closes_them(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [ask_call("q1")])
    openai_only.reply("SQLite, with sign-in and export first.")
    openai_only.reply("", [ask_call("q2")])
    openai_only.reply("I will decide myself.")
    lines = await program_lines(QUESTIONS_PROGRAM, openai_only, workspace)
    assert lines == [
        "asked: Which database should the app use? | Which parts should come first?",
        "answer: SQLite, with sign-in and export first.",
        "closed: I will decide myself.",
    ]
    told = openai_only.tool_results(2)["q1"]
    assert '→ SQLite' in told and '→ Sign-in; Export' in told
    assert "closed the questions without answering" in openai_only.tool_results(4)["q2"]


STEERING_PROGRAM = """
import asyncio
from neocode_tui.sdk import Approval, Session

async def main():
    async with await Session.start(".") as session:
        print("idle steer:", session.steer("too early"))
        run = session.send("write notes.txt")
        async for item in run:
            if isinstance(item, Approval):
                print("steered:", session.steer("and give it a title"))
                item.allow()
            elif item.type == "steered":
                print("joined turn", item.turn, repr(item.text))
        print("answer:", (await run.wait()).final_text, run.unread)

asyncio.run(main())
"""


async def test_a_program_steers_the_running_turn_and_its_next_request_reads_the_words(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [("w1", "write_file", json.dumps({"path": "notes.txt", "content": "x\n"}))])
    openai_only.reply("Written, with a title.")
    lines = await program_lines(STEERING_PROGRAM, openai_only, workspace)
    assert lines == [
        "idle steer: False",
        "steered: True",
        "joined turn 2 'and give it a title'",
        "answer: Written, with a title. []",
    ]
    last = openai_only.request(2)["messages"][-1]
    assert last == {"role": "user", "content": "and give it a title"}
