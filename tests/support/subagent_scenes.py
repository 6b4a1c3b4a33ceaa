"""A ``task`` call as scenes: the parent asks an explorer, the child greps and answers."""

from __future__ import annotations

import json

from neocode_tui.chat import ChatRequest
from neocode_tui.events import StreamEvent, Usage
from neocode_tui.providers.scripted import scripted_reply
from neocode_tui.tui.scenarios import Release, Scenario, Type

FILES = {
    "README.md": "# Demo project\n",
    "src/app.py": 'def main():\n    print("hello")\n    # TODO: handle --verbose\n',
}
TASK = json.dumps({"description": "find --verbose handling",
                   "prompt": "Where is the --verbose flag handled in src?"})
GREP = json.dumps({"pattern": "verbose", "path": "src"})
ANSWER = ("`--verbose` is not handled yet: `src/app.py` line 3 has a TODO for it.\n"
          "Nothing else in `src` reads the flag.")


def model(request: ChatRequest) -> list[StreamEvent]:
    """The parent asks an explorer; the child greps, then answers."""
    usage = Usage(input_tokens=900, output_tokens=60)
    if "working for another agent" in request.system:
        if len(request.messages) == 1:
            return scripted_reply("Searching src for the flag.\n", [("grep", GREP)], usage=usage)
        return scripted_reply(ANSWER, usage=usage)
    if len(request.messages) == 1:
        return scripted_reply("I'll have an explorer find where the flag is handled.", [("task", TASK)],
                              usage=usage)
    return scripted_reply("The flag is not handled yet; the TODO in `src/app.py` marks the spot.",
                          usage=usage)


PROMPT = Type("Is --verbose handled?")
RUNNING = Scenario("task-running", "a subagent at work in its panel", lambda: model,
                   (PROMPT, Release(53)), files=FILES)
FOLDED = Scenario("task-folded", "a subagent's panel folded to its answer", lambda: model,
                  (PROMPT, Release()), files=FILES)
