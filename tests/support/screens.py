"""The screens the snapshot and Pilot tests look at: the demo scripts, and states part way
through them (the same model, stopped after fewer steps, or in another theme)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from neocode_tui.agent.store.session_store import SessionStore
from neocode_tui.chat import Message
from neocode_tui.events import Usage
from neocode_tui.providers.scripted import TurnSource, scripted_reply
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
        _fence, name="queued",
        description="while the answer streams: one message on its way into the turn, one for after it",
        steps=(Type("Write a retry helper"), Release(22), Type("Now add tests for it"),
               Type("and a docstring\nwith an example", send=False), Press("tab")),
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


def _context_turns(input_tokens: int) -> Callable[[], TurnSource]:
    """One answer whose usage fills ``input_tokens`` of gpt-4o's 128k window; then, asked
    for a summary, one."""

    def turns() -> TurnSource:
        return [
            scripted_reply("The helper retries three times, doubling the wait.",
                           usage=Usage(input_tokens=input_tokens, output_tokens=400), delta=12),
            scripted_reply("The user asked how the retry helper works; it was explained.",
                           usage=Usage(input_tokens=900, output_tokens=60), delta=12),
        ]

    return turns


_ASK = (Type("/model gpt-4o"), Type("How does the retry helper work?"), Release())
SCREENS |= {
    "context-meter": replace(
        _fence, name="context-meter", description="the context meter and cost after an answer",
        turns=_context_turns(38_000), steps=_ASK,
    ),
    "context-full": replace(
        _fence, name="context-full", description="the context meter near the limit, in warning colour",
        turns=_context_turns(112_000), steps=_ASK,
    ),
    "context-report": replace(
        _fence, name="context-report", description="/context: what fills the window",
        turns=_context_turns(38_000), steps=(*_ASK, Type("/context")),
        files={"AGENTS.md": "Run the tests with pytest before you answer.\n" * 40},
    ),
    "compacted": replace(
        _fence, name="compacted", description="the marker after /compact, the history above it",
        turns=_context_turns(38_000), steps=(*_ASK, Type("/compact"), Release()),
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


PICKER_NOW = datetime(2026, 3, 2, 17, 0)
"""The picker's clock in snapshots: the ages below are counted from it."""
_FLAKY = "Fix the flaky retry test in tests/test_app.py"
SAVED_SESSIONS = (
    # (model, prompts, title and who gave it, when last used); the first is forked from the second
    ("gpt-4o", (_FLAKY, "Retry with a fake clock instead of sleeping"), ("Flaky retry test fix", "model"),
     datetime(2026, 3, 2, 16, 57)),
    ("gpt-4o", (_FLAKY, "Now run the whole suite"), ("Flaky retry test fix", "model"),
     datetime(2026, 3, 2, 11, 40)),
    ("claude-sonnet-4", ("Add a --verbose flag to the CLI", "Also document it in the README and the man page, "
                         "with an example of what it prints for a failing command"), ("CLI verbosity", "user"),
     datetime(2026, 3, 1, 9, 5)),
    ("gpt-4o-mini", ("Write the release notes for 0.2",), None, datetime(2026, 2, 20, 11, 30)),
    ("gpt-4o", ("Move the configuration loader to pydantic settings and keep the old names as aliases",
                "Why does make test print \x1b[31mred\x1b[0m on CI?"), None, datetime(2025, 11, 28, 14, 0)),
)


def write_saved_sessions(workspace: Path) -> list[str]:
    """Sessions of ``workspace`` as the app saves them, each prompt answered, with fixed
    times so the picker shows the same rows on every run; the first made by ``/rewind``
    from the second, at its prompt 2. Their ids, in ``SAVED_SESSIONS``' order."""
    ids: list[str] = []
    for model, prompts, title, when in reversed(SAVED_SESSIONS):
        fork = ids[-1] if len(ids) == len(SAVED_SESSIONS) - 1 else None
        store = SessionStore.create(workspace, provider="openai", model=model, forked_from=fork,
                                    fork_prompt=2 if fork else None)
        if title is not None:
            store.append_title(*title)
        for prompt in prompts:
            store.append_prompt(prompt)
            store.append_message(Message(role="user", content=prompt))
            store.append_message(Message(role="assistant", content="Done."))
        store.close()
        os.utime(store.path, (when.timestamp(), when.timestamp()))
        ids.append(store.id)
    return ids[::-1]


SCREENS["session-picker"] = replace(
    _fence, name="session-picker", description="/resume with no ID: the saved sessions to pick from",
    steps=(Type("/resume"),),
)


# -- a command running, its output arriving ------------------------------------------------

_TEST_RUN = """\
for n in $(seq 1 23); do
  printf 'tests/test_module_%02d.py ........................ [%3d%%]\\n' "$n" $((n * 4))
done
echo 'tests/test_slow_io.py ....'
sleep 60
"""
_RUN_TESTS = ("bash", json.dumps({"command": "bash run_tests.sh"}))
SCREENS["command-running"] = Scenario(
    "command-running", "a test run's latest output streaming into its panel",
    lambda: [scripted_reply("Running the test suite.", [_RUN_TESTS])],
    (Type("Run the tests"),), files={"run_tests.sh": _TEST_RUN}, approval="full-auto",
)


# -- web pages, skills and instruction files -------------------------------------------------

_SKILL = "---\nname: {name}\ndescription: {description}\n---\n{body}\n"
_KNOWLEDGE_FILES = {
    "AGENTS.md": "Run the tests with pytest before you answer.\n@docs/style.md\n",
    "docs/style.md": "Type hints everywhere; short docstrings that say why.\n",
    "src/cli/AGENTS.md": "The CLI keeps its flags in args.py, one per line.\n",
    "src/cli/args.py": "import argparse\n",
    ".neocode/skills/release/SKILL.md": _SKILL.format(
        name="release", description="Cut a release; bump the version, write the changelog, tag.",
        body="1. Bump the version in pyproject.toml."),
    ".claude/skills/db-migrate/SKILL.md": _SKILL.format(
        name="db-migrate", description="Write and check a database migration with alembic.",
        body="Run alembic revision --autogenerate."),
}
SCREENS |= {
    "web-fetch-approval": Scenario(
        "web-fetch-approval", "web_fetch asking about a page, yes for its domain offered",
        lambda: [scripted_reply("", [("web_fetch", json.dumps(
            {"url": "http://localhost:8080/docs/getting-started"}))])],
        (Type("Read the getting-started guide"), Release()),
    ),
    "skills-report": Scenario(
        "skills-report", "/skills: the skills and where each came from", lambda: [],
        (Type("/skills"),), files=_KNOWLEDGE_FILES,
    ),
    "memory-report": Scenario(
        "memory-report", "/memory after a read in src/cli brought that folder's AGENTS.md",
        lambda: [scripted_reply("", [("read_file", json.dumps({"path": "src/cli/args.py"}))]),
                 scripted_reply("It parses the arguments with argparse.")],
        (Type("What does src/cli/args.py do?"), Release(), Type("/memory")), files=_KNOWLEDGE_FILES,
    ),
}
