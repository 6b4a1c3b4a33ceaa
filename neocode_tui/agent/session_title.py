"""A session's title: the first prompt's first line at once, then the small model's, asked
alongside the prompt, when it gives one (``small_model``; the prompt waits for it at its
end, so a run never leaves the request behind)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from neocode_tui.agent.side_work import SideWork
from neocode_tui.agent.store import title_of


class Titling:
    def __init__(self, side: SideWork, *, told: Callable[[str], None]) -> None:
        """``told``: the title is now this (front ends show it)."""
        self.title = ""
        self._side = side
        self._told = told
        self._work: asyncio.Task[None] | None = None

    def first_prompt(self, prompt: str, *, tell: bool) -> None:
        """Title an untitled session after ``prompt``; ``tell``: say so now (it is saved)."""
        if self.title:
            return
        self.title = title_of(prompt)
        if tell:
            self._told(self.title)
        if self._side.enabled:
            self._work = asyncio.create_task(self._small_title(prompt))

    async def settle(self) -> None:
        """Wait for the small model's title, if one was asked for."""
        if self._work is not None:
            await asyncio.wait([self._work])

    async def aclose(self) -> None:
        if self._work is not None:
            self._work.cancel()
            await asyncio.wait([self._work])

    async def _small_title(self, prompt: str) -> None:
        """The small model's title replaces the first line of the prompt, when it gives one."""
        try:
            title = await self._side.title(prompt)
        except Exception:  # providers report failures as events: a bug must not end the prompt
            return
        if title and self.title:
            self.title = title
            self._told(title)
