"""The small model (``small_model``): the side work of a session, off the main model.

Titles, compaction summaries and explore subagents need no frontier model; with
``small_model`` set they go to that model of the same provider (same URL, same key), and
their tokens are counted apart in ``/cost``. Without it the main model does them and the
title is the first prompt's first line, as before.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from neocode_tui.agent.context import TITLE, Budget, Meter, estimate_tokens
from neocode_tui.agent.store import title_of
from neocode_tui.chat import ChatRequest, Message
from neocode_tui.collector import collect
from neocode_tui.events import Usage
from neocode_tui.known_secrets import Secrets
from neocode_tui.providers import Provider, make_provider
from neocode_tui.settings.model import Settings
from neocode_tui.terminal_text import without_controls

TITLE_INSTRUCTION = (
    "Write a title of at most six words for a coding session that starts with the request "
    "below. Answer with the title alone: no quotes, no full stop."
)
TITLE_PROMPT_CHARS = 2_000
TITLE_TOKENS = 40


class SideHost(Protocol):
    """The session the side work is for, read at each request: its settings (which name the
    small model) and its provider (the model used where there is no small one)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def provider(self) -> Provider: ...


class SideWork:
    def __init__(self, host: SideHost, meter: Meter, secrets: Secrets, budget: Budget | None = None) -> None:
        """``budget``: the session's, which side requests go through like any other."""
        self._host = host
        self._meter = meter
        self._budget = budget
        self._secrets = secrets
        self._small: Provider | None = None
        self._small_for: tuple[str | None, ...] = ()
        self._retired: list[Provider] = []

    @property
    def enabled(self) -> bool:
        """A small model is set, for a real provider (the offline tour has no second one)."""
        settings = self._host.settings
        return bool(settings.small_model) and not settings.offline

    def provider(self) -> Provider:
        """The provider side work goes to: the small model's, else the main one. Subagents
        that explore take theirs from here."""
        settings = self._host.settings
        if not self.enabled or not settings.small_model:
            return self._host.provider
        wanted = (settings.resolved_provider, settings.resolved_base_url, settings.api_key,
                  settings.small_model)
        if self._small is None or self._small_for != wanted:
            # A profile switch brings another provider: the next side request goes there.
            if self._small is not None:
                self._retired.append(self._small)
            small = settings.model_copy(update={"model": settings.small_model, "effort": None})
            self._small, self._small_for = make_provider(small, secrets=self._secrets), wanted
        return self._small

    def count(self, usage: Usage | None) -> None:
        """A side request's usage, for the model that did it, apart from the main work."""
        self._meter.count(usage, self.provider().model, side=self.enabled)

    async def title(self, prompt: str) -> str | None:
        """A short title for a session that starts with ``prompt``; None when the small
        model gave none (the first line of the prompt stays the title)."""
        model = self.provider().model
        request = ChatRequest(model=model, system=TITLE_INSTRUCTION, messages=[
            Message(role="user", content=prompt[:TITLE_PROMPT_CHARS])], max_tokens=TITLE_TOKENS)
        budget = self._budget
        tokens = estimate_tokens(TITLE_INSTRUCTION + prompt[:TITLE_PROMPT_CHARS])
        if budget is not None and await budget.admit(
                TITLE, lambda: self._meter.cost_of(tokens, TITLE_TOKENS, model)) is not None:
            return None  # past the budget: the prompt's first line stays the title
        try:
            turn = await collect(self._secrets.stream(self.provider().stream(request)))
        except asyncio.CancelledError:
            if budget is not None:
                budget.counted(False, TITLE)  # it may have been charged: as estimated
            raise
        self.count(turn.usage)
        if budget is not None:
            budget.counted(turn.usage is not None, TITLE)
        lines = [line for line in turn.text.strip().splitlines() if line.strip()]
        if not turn.ok or not lines:
            return None
        title = title_of(without_controls(lines[0]).strip().strip("\"'“”*#` ").rstrip("."))
        return title or None

    async def aclose(self) -> None:
        for provider in [*self._retired, *([self._small] if self._small else [])]:
            await provider.aclose()
        self._small, self._retired = None, []
