"""The demo scripts ``neocode demo`` plays: the one source for demos, their recordings and
the snapshot tests (which stop them part way to catch a screen mid-stream)."""

from __future__ import annotations

from neocode_tui.events import (
    MessageDone,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from neocode_tui.providers import TurnSource, offline_reply, scripted_reply
from neocode_tui.tui.scenarios.driver import Press, Release, Scenario, Scroll, Type
from neocode_tui.tui.scenarios.showcase import SHOWCASE

_FENCE_ANSWER = """Here is a small helper that retries a flaky call:

```python
import asyncio

async def retry(call, attempts=3, delay=0.5):
    for attempt in range(1, attempts + 1):
        try:
            return await call()
        except ConnectionError:
            if attempt == attempts:
                raise
            await asyncio.sleep(delay * 2 ** attempt)
```

It doubles the wait after each failure and gives up after `attempts` tries."""


def _fence_turns() -> TurnSource:
    usage = Usage(input_tokens=812, output_tokens=164)
    return [scripted_reply(_FENCE_ANSWER, usage=usage, delta=7)]


def _parallel_turns() -> TurnSource:
    """Two calls whose argument deltas interleave, as OpenAI sends parallel calls."""
    first = '{"path": "src/app.py"}'
    second = '{"pattern": "TODO", "path": "src"}'
    events: list[StreamEvent] = [TextDelta(text="I will read the app and look for TODOs at once.")]
    events += [
        ToolCallStart(index=0, id="call_read_1", name="read_file"),
        ToolCallStart(index=1, id="call_grep_1", name="grep"),
    ]
    for i in range(0, max(len(first), len(second)), 6):
        if first[i : i + 6]:
            events.append(ToolCallDelta(index=0, arguments=first[i : i + 6]))
        if second[i : i + 6]:
            events.append(ToolCallDelta(index=1, arguments=second[i : i + 6]))
    events += [
        ToolCallEnd(index=0),
        ToolCallEnd(index=1),
        MessageDone(finish_reason="tool_calls", usage=Usage(input_tokens=1204, output_tokens=58)),
    ]
    answer = scripted_reply(
        "`src/app.py` defines `main()`; there is one TODO left, in `src/app.py` line 3:"
        " *handle --verbose*.",
        usage=Usage(input_tokens=1490, output_tokens=41),
    )
    return [events, answer]


_PROJECT_FILES = {
    "README.md": "# Demo project\n\nA tiny project for NeoCode's scripted sessions.\n",
    "src/app.py": 'def main():\n    print("hello")\n    # TODO: handle --verbose\n',
}


def _error_turns() -> TurnSource:
    return [[
        TextDelta(text="Let me check"),
        StreamError(
            kind="auth", status=401,
            message="authentication failed: check the API key (HTTP 401 from api.openai.com): "
            "Incorrect API key provided",
        ),
    ]]


def _long_turns() -> TurnSource:
    return lambda request: scripted_reply(
        f"Answer number {len(request.messages) // 2 + 1}.\n\n"
        + "\n".join(f"- point {i}: something worth a line of its own" for i in range(1, 7)),
        usage=Usage(input_tokens=300, output_tokens=60),
    )


SCENARIOS: dict[str, Scenario] = {
    scenario.name: scenario
    for scenario in (
        Scenario(
            "tour",
            "the offline model's tour: stream, list, read, an approved edit, an answer",
            lambda: offline_reply,
            (Type("Show me around this project"), Release(), Press("y"), Release()),
            files=_PROJECT_FILES,
        ),
        Scenario(
            "fence",
            "an answer with a code fence, streamed",
            _fence_turns,
            (Type("Write a retry helper"), Release()),
        ),
        Scenario(
            "parallel",
            "two tool calls streamed in parallel, run, then answered",
            _parallel_turns,
            (Type("What is left to do in src?"), Release()),
            files=_PROJECT_FILES,
        ),
        Scenario(
            "approval",
            "an edit waiting for approval, with its diff",
            lambda: offline_reply,
            (Type("Show me around this project"), Release()),
            files={**_PROJECT_FILES, "NOTES.md": "# Notes\n\n- keep the demo small\n"},
        ),
        Scenario(
            "error",
            "a provider error in the middle of an answer",
            _error_turns,
            (Type("Hello?"), Release()),
        ),
        Scenario(
            "long",
            "a long conversation, scrolled back",
            _long_turns,
            (
                *(step for n in range(1, 7) for step in (Type(f"Question {n}"), Release())),
                Scroll(-40),
            ),
        ),
        SHOWCASE,
    )
}

