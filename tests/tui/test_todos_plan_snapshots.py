"""The pinned task list during a long answer and the plan hand-off, as SVG snapshots at
80x24 and 120x40 (each was looked at before it was committed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neocode_tui.providers.scripted import scripted_reply
from neocode_tui.tui.scenarios import Release, Scenario, Type
from tests.support.calls import TODOS
from tests.support.scene_snapshots import scene_matches

ANSWER = "".join(
    f"{n}. Step {n} of the change: the flag is parsed, checked and passed on to `greet`.\n"
    for n in range(1, 41)
)
PLAN = """\
## Plan: a `--name` flag

1. **app.py**: parse `--name` with argparse (default `world`) and pass it to `greet`.
2. **greet()**: take the name as a parameter and return `hello, NAME`.
3. **tests/test_app.py**: cover the default and a given name.
4. Run `pytest -q` and fix what fails.

Nothing else changes; the output stays one line.
"""
MORE_TODOS = [*TODOS, {"content": "Update the README", "status": "pending"},
              {"content": "Write the changelog entry", "status": "pending"}]

SCENES = {
    "todos": Scenario(
        "todos", "the task list pinned above the input while a long answer streams",
        lambda: [scripted_reply("", [("todo_write", json.dumps({"todos": MORE_TODOS}))]),
                 scripted_reply(ANSWER, delta=12)],
        (Type("Add a --name flag"), Release(260)), files={"app.py": "print('hello')\n"},
        approval="full-auto",
    ),
    "plan": Scenario(
        "plan", "the plan handed over in plan mode, asking what to do with it",
        lambda: [scripted_reply("I read app.py; here is the plan.",
                                [("exit_plan_mode", json.dumps({"plan": PLAN}))])],
        (Type("Add a --name flag"), Release()), files={"app.py": "print('hello')\n"},
        approval="plan",
    ),
}


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("name", list(SCENES))
def test_screen(name: str, size: tuple[int, int], snap_compare, tmp_path: Path) -> None:
    assert scene_matches(SCENES[name], size, snap_compare, tmp_path)
