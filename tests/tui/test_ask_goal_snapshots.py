"""The model's questions (``ask_user``) and a goal at work (``/goal``) as SVG snapshots at
80x24 and 120x40 (each was looked at before it was committed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neocode_tui.providers.scripted import scripted_reply
from neocode_tui.tui.scenarios import Press, Release, Scenario, Type
from tests.support.calls import QUESTIONS
from tests.support.scene_snapshots import scene_matches

NOT_YET = json.dumps({"met": False, "reason": "the tests were not run, so nothing shows they pass"})

SCENES = {
    "goal": Scenario(
        "goal", "a goal on its second turn: the judge's reason said, the goal and turn in the status bar",
        lambda: [scripted_reply("I fixed the import in app.py.", delta=200),
                 scripted_reply(NOT_YET, delta=200),
                 scripted_reply("Running the tests now, then I will fix what fails.", delta=200)],
        (Type("/goal all tests pass and the lint step is clean"), Release(5)),
        files={"app.py": "print('hello')\n"}, approval="full-auto",
    ),
    "ask": Scenario(
        "ask", "the model's first question, one key per option",
        lambda: [scripted_reply("I need two decisions from you.",
                                [("ask_user", json.dumps({"questions": QUESTIONS}))])],
        (Type("Build the app"), Release()), files={"app.py": "print('hello')\n"}, approval="plan",
    ),
    "ask-ticked": Scenario(
        "ask-ticked", "a multi-select question with two options ticked and an own answer",
        lambda: [scripted_reply("I need two decisions from you.",
                                [("ask_user", json.dumps({"questions": QUESTIONS}))])],
        (Type("Build the app"), Release(), Press("2", "1", "3", "o", *"an audit log", "enter")),
        files={"app.py": "print('hello')\n"}, approval="plan",
    ),
}


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("name", list(SCENES))
def test_screen(name: str, size: tuple[int, int], snap_compare, tmp_path: Path) -> None:
    assert scene_matches(SCENES[name], size, snap_compare, tmp_path)
