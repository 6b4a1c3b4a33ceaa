"""The README's picture: one scripted session that shows most of what the app draws at once.

A task list set by the model, a file read, an edit approved with ``y`` (its diff stays in
the conversation), and a Markdown answer caught while it streams, so the task list is
unfolded and the status bar says the model is working. ``docs/neocode.svg`` is its last
screen; ``tests/test_readme_picture.py`` keeps the two the same.
"""

from __future__ import annotations

import json

from neocode_tui.events import Usage
from neocode_tui.providers import TurnSource, scripted_reply
from neocode_tui.tui.scenarios.driver import Press, Release, Scenario, Type

SIZE = (120, 44)
"""Taller than the snapshots' 100x32: the whole edit, its diff unfolded, and the answer below it fit on one screen."""

_CLIENT = """import asyncio

import httpx


async def fetch(client: httpx.AsyncClient, url: str) -> bytes:
    response = await client.get(url)
    response.raise_for_status()
    return response.content
"""

_OLD = "    response = await client.get(url)\n"
_NEW = """    for wait in (0.5, 1, 2):
        response = await client.get(url)
        if response.status_code != 503:
            break
        await asyncio.sleep(wait)
"""

_ANSWER = """Done: `fetch()` now **retries a 503** up to three times, waiting 0.5, 1 and 2 seconds.

- any other error status is raised at once by `raise_for_status()`
- a 503 on the last try is raised too, so callers still see *why* it failed

```python
body = await fetch(client, "https://example.org/data.json")
```

Next I will add a test that answers 503 twice and checks the third body."""

_TASKS = ["Read src/client.py", "Retry 503 answers in fetch()", "Test the retries", "Run the tests"]


def _turns() -> TurnSource:
    todos = [
        {"content": item, "status": ("completed", "in_progress", "pending", "pending")[n]}
        for n, item in enumerate(_TASKS)
    ]
    edit = json.dumps({"path": "src/client.py", "old_string": _OLD, "new_string": _NEW})
    return [
        scripted_reply(
            "I will read the client first, then change `fetch()` and test it.",
            [("read_file", json.dumps({"path": "src/client.py"})), ("todo_write", json.dumps({"todos": todos}))],
            usage=Usage(input_tokens=2410, output_tokens=96),
        ),
        scripted_reply(
            "`fetch()` gives up on the first **503**. I will retry it, waiting longer each time.",
            [("edit_file", edit)],
            usage=Usage(input_tokens=2688, output_tokens=214),
        ),
        scripted_reply(_ANSWER, delta=5, usage=Usage(input_tokens=3301, output_tokens=151)),
    ]


SHOWCASE = Scenario(
    "showcase",
    "the README's picture: a task list, an approved edit with its diff, an answer streaming",
    _turns,
    (
        Type("Make fetch() in src/client.py retry when the server answers 503"),
        Release(),  # to the approval of the edit
        Press("y"),
        Release(65),  # the answer, up to a few words after its code block
        Press("ctrl+t"),  # the edit's diff unfolded
    ),
    files={"src/client.py": _CLIENT},
    size=SIZE,
)
