"""``neocode_tui.sdk`` as docs/sdk.md shows it: the page's example run as a program of its
own, against the scripted model over real HTTP, in a real folder."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

from tests.support.dialects import Dialect
from tests.support.docs_pages import DOCS
from tests.support.headless import headless_env
from tests.support.waits import PATIENCE


def example() -> str:
    page = (DOCS / "sdk.md").read_text(encoding="utf-8")
    found = re.search(r"```python\n(.*?)```", page, re.DOTALL)
    assert found is not None
    return found.group(1)


async def test_the_documented_example_writes_the_file_it_was_allowed_to_and_resumes(
    openai_only: Dialect, workspace: Path
) -> None:
    openai_only.reply("", [("w1", "write_file", json.dumps({"path": "hello.txt", "content": "hello\n"}))])
    openai_only.reply("hello.txt says hello.")
    openai_only.reply("Nothing more to do.")
    program = example() + "\nimport sys\nprint('textual loaded:', 'textual' in sys.modules)\n"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", program, cwd=workspace, env=headless_env(openai_only),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), PATIENCE)

    assert process.returncode == 0, err.decode()
    assert out.decode().splitlines() == [
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
