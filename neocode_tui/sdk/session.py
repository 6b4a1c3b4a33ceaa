"""A session to embed: ``Session.start`` opens one in a folder, ``send`` runs a prompt
whose events (and the calls that wait for a yes) a ``Run`` yields as they come."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from neocode_tui.agent.loop_events import ApprovalDecision, ApprovalRequested, LoopEvent, RunFinished
from neocode_tui.agent.session import AgentSession, FrontEnd
from neocode_tui.agent.tools import AskQuestion, Reply, ToolError, UserQuestions, reply_of
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


@dataclass
class Questions:
    """The model asks the user (``ask_user``): ``answer`` each question by its text, with a
    label, a list of labels (a multi-select question) or your own words, or ``close()``
    to leave them all unanswered."""

    asked: UserQuestions
    _answer: asyncio.Future[Sequence[Reply] | None] = field(repr=False)

    @property
    def questions(self) -> tuple[AskQuestion, ...]:
        return self.asked.questions

    def answer(self, answers: Mapping[str, str | Sequence[str]]) -> None:
        """A question left out of ``answers`` gets no answer."""
        replies = [reply_of(question, answers[question.question]) if question.question in answers
                   else Reply() for question in self.questions]
        if not self._answer.done():
            self._answer.set_result(replies)

    def close(self) -> None:
        if not self._answer.done():
            self._answer.set_result(None)


Item = LoopEvent | Approval | Questions
"""What a run yields: the session's events, and what waits for an answer."""


class Run:
    """One prompt's run: iterate it for its events and approvals; ``result`` once it ends."""

    def __init__(self) -> None:
        self._items: asyncio.Queue[Item | None] = asyncio.Queue()
        self._task: asyncio.Task[RunFinished] | None = None
        self.result: RunFinished | None = None
        self.unread: list[str] = []
        """What ``Session.steer`` sent that no request read before the run ended."""

    def __aiter__(self) -> AsyncIterator[Item]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Item]:
        while (item := await self._items.get()) is not None:
            yield item

    async def wait(self) -> RunFinished:
        """The run's end, whatever was not iterated (an approval nobody answered is a no,
        questions nobody answered are closed)."""
        assert self._task is not None
        self.result = await self._task
        return self.result

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def _put(self, item: Item | None) -> None:
        self._items.put_nowait(item)


class Session:
    """A conversation with the agent in ``folder``, saved as the app's sessions are (so
    ``neocode --resume ID`` and ``Session.start(..., resume=ID)`` go on with it)."""

    def __init__(self, settings: Settings, workspace: Path, *, trusted: bool = False) -> None:
        """Prefer ``start``, which reads the settings for ``workspace`` without blocking."""
        self._run: Run | None = None
        front = FrontEnd(listener=self._event, approver=self._ask, questions=self._questions)
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

    def steer(self, text: str) -> bool:
        """Send ``text`` to the run in progress: its next model request reads it, as typing
        while the agent works does in the app. False when nothing runs (``send`` it). Words
        no request read before the run ended are in its ``unread``."""
        return self.core.steer(text) is not None

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
            run.unread = self.core.take_steers()
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

    async def _questions(self, asked: UserQuestions) -> Sequence[Reply] | None:
        if self._run is None:
            raise ToolError("not asked: nobody is there to answer")
        answer: asyncio.Future[Sequence[Reply] | None] = asyncio.get_running_loop().create_future()
        self._run._put(Questions(asked, answer))
        return await answer
