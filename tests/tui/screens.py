"""The screens the snapshot and Pilot tests look at: the demo scripts, and states part way
through them (the same model, stopped after fewer steps, or in another theme)."""

from __future__ import annotations

import json
from dataclasses import replace

from neocode_tui.providers.scripted import TurnSource, scripted_reply
from neocode_tui.tui.scenarios import SCENARIOS, Press, Release, Scenario, Type

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
    "completion": replace(
        _fence, name="completion", description="slash-command completion while typing /",
        steps=(Type("/", send=False),),
    ),
}


# -- taking back what the agent did, and @ mentions ----------------------------------------

_EDITING_FILES = {
    "README.md": "# Demo project\n\nA tiny project for NeoCode's scripted sessions.\n",
    "src/app.py": 'def main():\n    print("hello")\n    # TODO: handle --verbose\n',
    "src/cli/args.py": "import argparse\n",
    "src/cli/apply.py": "def apply():\n    pass\n",
    "tests/test_app.py": "from src.app import main\n",
    "docs/api.md": "# API\n",
}


def _editing_turns() -> TurnSource:
    verbose = json.dumps({
        "path": "src/app.py", "old_string": '    # TODO: handle --verbose\n',
        "new_string": '    if "--verbose" in sys.argv:\n        print("verbose mode")\n',
    })
    changelog = json.dumps({"path": "CHANGELOG.md", "content": "- --verbose prints more\n"})
    docs = json.dumps({"path": "docs/api.md", "content": "# API\n\nmain() runs the app.\n"})
    return [
        scripted_reply(
            "I will handle the flag and note it.", [("edit_file", verbose), ("write_file", changelog)]
        ),
        scripted_reply("Done: `--verbose` now prints *verbose mode*."),
        scripted_reply("Added a docstring.", [("write_file", docs)]),
        scripted_reply("Documented."),
    ]


SCREENS["editing"] = Scenario(
    "editing", "two prompts whose file edits /undo and /rewind can take back", _editing_turns,
    (Type("Handle --verbose in src/app.py"), Release(), Type("Document main in docs/api.md"), Release()),
    files=_EDITING_FILES, approval="full-auto",
)
SCREENS["mention"] = replace(
    SCREENS["editing"], name="mention", description="the @ file picker while a path is typed",
    steps=(Type("Explain @ap", send=False),),
)
