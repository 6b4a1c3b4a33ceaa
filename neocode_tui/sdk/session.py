"""A session to embed: ``Session.start`` opens one in a folder, ``send`` runs a prompt
whose events (and the calls that wait for a yes) a ``Run`` yields as they come."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from neocode_tui.agent.loop_events import ApprovalDecision, ApprovalRequested, LoopEvent, RunFinished
from neocode_tui.agent.session import AgentSession, FrontEnd
from neocode_tui.errors import WorkInProgress
from neocode_tui.settings import Settings, load_settings


@dataclass
class Approval:
    """A call that waits for a yes: ``allow()`` or ``deny(reason)`` (the reason reaches
    the model). Nothing runs until one is called."""

    request: ApprovalRequested
    _answer: asyncio.Future[ApprovalDecision] = field(repr=False)

    def allow(self, *, for_session: bool = False) -> None:
        """``for_session``: this tool runs without asking for the rest of the session."""
        self._decide(ApprovalDecision(verdict="session" if for_session else "yes"))

    def deny(self, reason: str = "") -> None:
        self._decide(ApprovalDecision(verdict="no", reason=reason))

    def _decide(self, decision: ApprovalDecision) -> None:
        if not self._answer.done():
            self._answer.set_result(decision)


class Run:
    """One prompt's run: iterate it for its events and approvals; ``result`` once it ends."""

    def __init__(self) -> None:
        self._items: asyncio.Queue[LoopEvent | Approval | None] = asyncio.Queue()
        self._task: asyncio.Task[RunFinished] | None = None
        self.result: RunFinished | None = None

    def __aiter__(self) -> AsyncIterator[LoopEvent | Approval]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[LoopEvent | Approval]:
        while (item := await self._items.get()) is not None:
            yield item

    async def wait(self) -> RunFinished:
        """The run's end, whatever was not iterated (an approval nobody answered is a no)."""
        assert self._task is not None
        self.result = await self._task
        return self.result

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def _put(self, item: LoopEvent | Approval | None) -> None:
        self._items.put_nowait(item)


class Session:
    """A conversation with the agent in ``folder``, saved as the app's sessions are (so
    ``neocode --resume ID`` and ``Session.start(..., resume=ID)`` go on with it)."""

    def __init__(self, settings: Settings, workspace: Path, *, trusted: bool = False) -> None:
        """Prefer ``start``, which reads the settings for ``workspace`` without blocking."""
        self._run: Run | None = None
        front = FrontEnd(listener=self._event, approver=self._ask)
        self.core = AgentSession(settings, workspace, front, trusted=trusted)

    @classmethod
    async def start(cls, folder: Path | str, *, settings: Mapping[str, object] | None = None,
                    trusted: bool = False, resume: str | None = None) -> Session:
        """``settings``: what the command line's flags would set (``model``, ``provider``,
        ``base_url``, ``approval``, ``max_turns``, ``effort``, ``sandbox``...), over the
        user's config and environment; ``trusted``: the folder's own settings, MCP servers
        and hooks apply. ``resume``: a saved session's id (or prefix) to go on with.
        Raises ``SettingsError`` or ``SessionNotFound`` with a message to show."""
        workspace = Path(folder)
        loaded = await asyncio.to_thread(load_settings, workspace, dict(settings or {}), trusted=trusted)
        session = cls(loaded.settings, workspace, trusted=trusted)
        if resume is not None:
            session.core.resume(resume)
        return session

    @property
    def id(self) -> str | None:
        """The saved session's id (None until the first prompt)."""
        return self.core.id

    def send(self, prompt: str) -> Run:
        """Start ``prompt``; iterate the ``Run`` for what happens. One run at a time."""
        if self._run is not None and self._run.running:
            raise WorkInProgress("the agent is still working on the last prompt")
        run = self._run = Run()
        run._task = asyncio.create_task(self._prompt(run, prompt))
        return run

    def cancel(self) -> bool:
        """Stop the run in progress (its result says ``cancelled``); False when none runs."""
        return self.core.cancel()

    async def close(self) -> None:
        """Stop what runs and close the session's file and servers."""
        await self.core.aclose()

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        trace: TracebackType | None) -> None:
        await self.close()

    async def _prompt(self, run: Run, prompt: str) -> RunFinished:
        try:
            run.result = await self.core.prompt(prompt)
            return run.result
        finally:
            run._put(None)

    def _event(self, event: LoopEvent) -> None:
        if self._run is not None:
            self._run._put(event)

    async def _ask(self, request: ApprovalRequested) -> ApprovalDecision:
        answer: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
        if self._run is None:
            return ApprovalDecision(verdict="no", reason="nobody is there to answer")
        self._run._put(Approval(request, answer))
        return await answer
