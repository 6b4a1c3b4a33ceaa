"""The screens the snapshot and Pilot tests look at: the demo scripts, and states part way
through them (the same model, stopped after fewer steps, or in another theme)."""

from __future__ import annotations

from dataclasses import replace

import json

from neocode_tui.providers.scripted import scripted_reply
from neocode_tui.tui.scenarios import SCENARIOS, Press, Release, Scenario, Type

_TABLE = "".join(f"| row {n:3} | {n * n:6} |\n" for n in range(1, 201))

_fence, _parallel = SCENARIOS["fence"], SCENARIOS["parallel"]

SCREENS: dict[str, Scenario] = {
    **SCENARIOS,
    "empty": replace(_fence, name="empty", description="the app before the first prompt", steps=()),
    "fence-cut": replace(
        _fence, name="fence-cut", description="an answer cut while its code fence is still open",
        steps=(Type("Write a retry helper"), Release(22)),
    ),
    "parallel-cut": replace(
        _parallel, name="parallel-cut",
        description="two tool calls growing side by side, arguments half sent",
        steps=(Type("What is left to do in src?"), Release(9)),
    ),
    "interrupted": replace(
        _fence, name="interrupted", description="an answer stopped with Esc",
        steps=(Type("Write a retry helper"), Release(22), Press("escape")),
    ),
    "light": replace(
        _parallel, name="light", description="the light theme, after parallel tool calls",
        theme="neocode-light",
    ),
    "queued": replace(
        _fence, name="queued", description="two messages queued while the answer streams",
        steps=(Type("Write a retry helper"), Release(22), Type("Now add tests for it"),
               Type("and a docstring\nwith an example")),
    ),
    "plan": replace(
        _fence, name="plan", description="plan mode switched on with Shift+Tab",
        steps=(Press("shift+tab", "shift+tab"),),
    ),
    "keys": replace(_fence, name="keys", description="the key-help overlay (F1)", steps=(Press("f1"),)),
    "approval-small": Scenario(
        "approval-small", "a 200-line edit asked about at 80x24, scrolled a page down",
        lambda: [scripted_reply("", [("write_file", json.dumps({"path": "table.md", "content": _TABLE}))])],
        (Type("Write the squares table"), Release(), Press("pagedown")),
    ),
    "completion": replace(
        _fence, name="completion", description="slash-command completion while typing /",
        steps=(Type("/", send=False),),
    ),
}
