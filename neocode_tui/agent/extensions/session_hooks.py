"""When a session's own hooks run: SessionStart before the first prompt of each start (a new
session, a resume, a /clear, a compaction), SessionEnd when it ends, Notification and
PermissionRequest around each question to the user.

A session starts with its first prompt (that is when its file is made), so SessionStart runs
just before that prompt is sent, and what it adds goes with it. A notification never holds
the question up: it runs beside it, and is waited for only when the session closes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from neocode_tui.agent.extensions.hooks import Hooks, StartSource
from neocode_tui.agent.loop_events import ApprovalDecision, ApprovalRequested

Approver = Callable[[ApprovalRequested], Awaitable[ApprovalDecision]]
ASKING = "permission_prompt"
"""The Notification type of a question waiting for the user (Claude Code's word)."""


class SessionHooks:
    def __init__(self, hooks: Hooks) -> None:
        self.hooks = hooks
        self._source: StartSource | None = "startup"
        """Why the next prompt starts a session; None: it does not."""
        self._started = False
        self._pending: set[asyncio.Task[Any]] = set()

    def restart(self, source: StartSource) -> None:
        """The conversation starts afresh (``resume``, ``clear``, ``compact``): the next prompt
        starts a session. A cleared one has ended: its SessionEnd runs now."""
        if source == "clear" and self._started:
            self._started = False
            self._beside(self.hooks.session_ended("clear", self.hooks.session_id()))
        self._source = source

    async def start_context(self, model: str) -> str:
        """The SessionStart hooks' context for the prompt about to be sent ("" when none, or
        when this prompt starts no session)."""
        await self._settle()
        source, self._source = self._source, None
        if source is None:
            return ""
        self._started = True
        return await self.hooks.session_started(source, model)

    async def end(self, reason: str) -> None:
        """The session closes: SessionEnd, if a prompt started it, once everything beside is done."""
        await self._settle()
        if self._started:
            self._started = False
            await self.hooks.session_ended(reason)

    def asking(self, approver: Approver) -> Approver:
        """``approver`` behind the PermissionRequest hooks (which may answer for the user), with
        a Notification when the user is asked after all."""

        async def ask(request: ApprovalRequested) -> ApprovalDecision:
            verdict = await self.hooks.permission_requested(request.name, request.arguments)
            if verdict.permission == "allow":
                return ApprovalDecision(verdict="yes")
            if verdict.permission == "deny":
                reason = f"a PermissionRequest hook refused it: {verdict.reason}".rstrip(": ")
                return ApprovalDecision(verdict="no", reason=reason)
            self.notify(f"NeoCode needs your permission to use {request.name}")
            return await approver(request)

        return ask

    def notify(self, message: str) -> None:
        self._beside(self.hooks.notify(message, ASKING))

    def _beside(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _settle(self) -> None:
        if self._pending:
            await asyncio.wait(list(self._pending))
