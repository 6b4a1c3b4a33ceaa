"""The harness that plays a scripted session in the real app, step by step.

A scenario is a folder to work in, a scripted model and a list of steps (type a prompt, let
the model emit N more events, press a key). ``StepProvider`` holds the model back until a
step lets it go on, and ``Driver`` waits after each step until nothing can happen without
the next one (the model is held, a question is on screen, or the run is over), so the
screen after every step is the same on every run and every machine.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from textual import events
from textual.pilot import Pilot
from textual.screen import ModalScreen

from neocode_tui.chat import ChatRequest
from neocode_tui.events import (
    StreamEvent,
)
from neocode_tui.providers import Provider, ScriptedProvider, TurnSource
from neocode_tui.settings import Settings
from neocode_tui.tui.app import NeoCodeApp
from neocode_tui.vocabulary import ApprovalMode

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

    def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        return self._gate(self.inner.stream(request))

    async def _gate(
        self, events: AsyncGenerator[StreamEvent, None]
    ) -> AsyncGenerator[StreamEvent, None]:
        async with aclosing(events):
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
    size: tuple[int, int] = SIZE
    """The terminal size a recording of it has."""

    def prepare(self, folder: Path) -> Path:
        """Create the scenario's files in ``folder``/project; the name shows on screen."""
        workspace = folder / "project"
        workspace.mkdir(parents=True, exist_ok=True)
        for name, text in self.files.items():
            path = workspace / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return workspace

    def build_app(self, workspace: Path, clock: Callable[[], float] = lambda: 0.0, **settings_given: Any) -> NeoCodeApp:
        """``settings_given``: settings of the user's besides the scenario's."""
        settings = Settings(provider="scripted", approval=self.approval, theme=self.theme, **settings_given)
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
        """Nothing will happen without the user: no run, or a question (an approval, a plan,
        a budget, an MCP server's) waits on screen for an answer."""
        return not self.app.working or (self.app.status.waiting and isinstance(self.app.screen, ModalScreen))

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


async def play(scenario: Scenario, pilot: Pilot, steps: Sequence[Step] | None = None) -> None:
    """Run ``steps`` (default: all the scenario's steps) and leave the screen as they leave it."""
    await Driver(pilot).play(scenario.steps if steps is None else steps)
