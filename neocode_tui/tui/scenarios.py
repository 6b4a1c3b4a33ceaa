"""Scripted sessions: the one source for ``neocode demo``, its recordings and the snapshot tests.

A scenario is a folder to work in, a scripted model and a list of steps (type a prompt, let
the model emit N more events, press a key). ``StepProvider`` holds the model back until a
step lets it go on, and ``Driver`` waits after each step until nothing can happen without
the next one (the model is held, a question is on screen, or the run is over), so the
screen after every step is the same on every run and every machine.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from textual import events
from textual.pilot import Pilot

from neocode_tui.vocabulary import ApprovalMode
from neocode_tui.config import Settings
from neocode_tui.chat import ChatRequest
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
from neocode_tui.providers import Provider
from neocode_tui.providers.offline import offline_reply
from neocode_tui.providers.scripted import ScriptedProvider, TurnSource, scripted_reply
from neocode_tui.tui.approval import ApprovalScreen
from neocode_tui.tui.app import NeoCodeApp

SIZE = (100, 32)
"""The terminal size of every demo and snapshot."""
PINNED_VERSION = "0.1.0"


class StepProvider:
    """Wraps a provider so that each event waits for the driver's permission."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.name = inner.name
        self._budget = 0.0
        self._changed = asyncio.Event()
        self.held = False
        """True while an event is ready but not allowed yet."""

    @property
    def model(self) -> str:
        return self.inner.model

    @model.setter
    def model(self, value: str) -> None:
        self.inner.model = value

    def allow(self, count: float) -> None:
        self._budget += count
        self._changed.set()

    def hold(self) -> None:
        """Take back what was allowed and not used: the next event waits again."""
        self._budget = 0

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        return self._gate(self.inner.stream(request))

    async def _gate(self, events: AsyncIterator[StreamEvent]) -> AsyncIterator[StreamEvent]:
        async for event in events:
            while self._budget < 1:
                self.held = True
                self._changed.clear()
                await self._changed.wait()
            self.held = False
            self._budget -= 1
            yield event

    async def aclose(self) -> None:
        await self.inner.aclose()


# -- steps ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Type:
    """Type ``text`` into the input and send it."""

    text: str
    send: bool = True


@dataclass(frozen=True)
class Release:
    """Let the model emit ``count`` more events (``math.inf``: all it has)."""

    count: float = math.inf


@dataclass(frozen=True)
class Press:
    keys: tuple[str, ...]

    def __init__(self, *keys: str) -> None:
        object.__setattr__(self, "keys", keys)


@dataclass(frozen=True)
class Scroll:
    """Scroll the conversation by ``lines`` (negative: up, away from the latest)."""

    lines: int


Step = Type | Release | Press | Scroll


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    turns: Callable[[], TurnSource]
    steps: tuple[Step, ...]
    files: dict[str, str] = field(default_factory=dict)
    approval: ApprovalMode = "ask"
    theme: str | None = None

    def prepare(self, folder: Path) -> Path:
        """Create the scenario's files in ``folder``/project; the name shows on screen."""
        workspace = folder / "project"
        workspace.mkdir(parents=True, exist_ok=True)
        for name, text in self.files.items():
            path = workspace / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return workspace

    def build_app(self, workspace: Path, clock: Callable[[], float] = lambda: 0.0) -> NeoCodeApp:
        settings = Settings(provider="scripted", approval=self.approval, theme=self.theme)
        provider = StepProvider(ScriptedProvider(self.turns()))
        return NeoCodeApp(
            settings, provider, workspace,
            clock=clock, version=PINNED_VERSION, remember_theme=False, blink=False,
        )


# -- driving ----------------------------------------------------------------------------

class Observer(Protocol):
    """Who watches a scenario play: a recorder takes frames, a live demo waits between them."""

    async def frame(self) -> None:
        """Called after each change that can be seen."""

    async def linger(self) -> None:
        """Called before a key press, so the screen it answers can be read."""


class Driver:
    """Plays a scenario's steps on a running app, telling ``observer`` about each change."""

    def __init__(self, pilot: Pilot, observer: Observer | None = None, chunk: float = math.inf) -> None:
        """``chunk``: events let go between two frames (small for recordings, all for tests)."""
        self.pilot = pilot
        self.chunk = chunk
        self.app: NeoCodeApp = pilot.app  # type: ignore[assignment]
        self.provider: StepProvider = self.app.provider  # type: ignore[assignment]
        self.observer = observer

    async def play(self, steps: Sequence[Step]) -> None:
        await self.settle()
        for step in steps:
            await self.step(step)

    async def step(self, step: Step) -> None:
        if isinstance(step, Type):
            await self._type(step)
        elif isinstance(step, Release):
            await self._release(step.count)
        elif isinstance(step, Press):
            for key in step.keys:
                if self.observer is not None:
                    await self.observer.linger()
                await self.pilot.press(key)
                await self.settle()
        else:
            conversation = self.app.conversation
            conversation.scroll_relative(y=step.lines, animate=False, immediate=True)
            await self.settle()

    async def _type(self, step: Type) -> None:
        if self.observer is None:  # nobody watches: paste it, as a terminal delivers a paste
            self.app.post_message(events.Paste(step.text))
            await self.pilot.pause()
        else:  # a recording shows the typing
            for start in range(0, len(step.text), 4):
                await self.pilot.press(*step.text[start : start + 4])
                await self._frame()
        if step.send:
            await self.pilot.press("enter")
            await self.settle()

    async def _release(self, count: float) -> None:
        """Let events go a few at a time, so a recording shows the stream growing."""
        remaining = count
        while remaining > 0 and not self._idle():
            chunk = min(remaining, self.chunk)
            self.provider.allow(chunk)
            remaining -= chunk
            await self.settle()
        self.provider.hold()  # what this step allowed ends with it (a later run waits again)

    def _idle(self) -> bool:
        """Nothing will happen without the user: no run, or a question waits for an answer."""
        return not self.app.working or isinstance(self.app.screen, ApprovalScreen)

    async def settle(self) -> None:
        """Wait until the model is held, a question is on screen or the run is over."""
        for _ in range(2000):
            await self.pilot.pause()
            if self._idle() or self.provider.held:
                break
        await self.app.conversation.settled()
        await self.pilot.pause()
        await self._frame()

    async def _frame(self) -> None:
        if self.observer is not None:
            # The status bar shows the clock; redraw it now, not at its next tick, so each
            # frame shows the time of that frame.
            self.app.status.refresh()
            await self.pilot.pause()
            await self.observer.frame()


# -- the scripts ------------------------------------------------------------------------

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
        # States inside the scripts above, as the snapshot tests see them.
        Scenario("empty", "the app before the first prompt", _fence_turns, ()),
        Scenario(
            "fence-cut",
            "an answer cut while its code fence is still open",
            _fence_turns,
            (Type("Write a retry helper"), Release(22)),
        ),
        Scenario(
            "parallel-cut",
            "two tool calls growing side by side, arguments half sent",
            _parallel_turns,
            (Type("What is left to do in src?"), Release(9)),
            files=_PROJECT_FILES,
        ),
        Scenario(
            "interrupted",
            "an answer stopped with Esc",
            _fence_turns,
            (Type("Write a retry helper"), Release(22), Press("escape")),
        ),
        Scenario(
            "light",
            "the light theme, after parallel tool calls",
            _parallel_turns,
            (Type("What is left to do in src?"), Release()),
            files=_PROJECT_FILES,
            theme="neocode-light",
        ),
        Scenario(
            "completion",
            "slash-command completion while typing /",
            _fence_turns,
            (Type("/", send=False),),
        ),
    )
}


async def play(scenario: Scenario, pilot: Pilot, steps: Sequence[Step] | None = None) -> None:
    """Run ``steps`` (default: all the scenario's steps) and leave the screen as they leave it."""
    await Driver(pilot).play(scenario.steps if steps is None else steps)
