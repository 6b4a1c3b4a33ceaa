"""A session's title: the first prompt's first line at once, then the small model's, asked
alongside the prompt, when it gives one (``small_model``; the prompt waits for it at its
end, so a run never leaves the request behind). The user's ``/rename`` beats both, whenever
it comes. The small model's title and the user's are saved (``save``): the first prompt's
line is in the file already."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from neocode_tui.agent.session.side_work import SideWork
from neocode_tui.agent.store import TitleSource, title_of
from neocode_tui.terminal_text import without_controls


class Titling:
    def __init__(self, side: SideWork, *, told: Callable[[str], None],
                 save: Callable[[str, TitleSource], None]) -> None:
        """``told``: the title is now this (front ends show it); ``save``: write it to the
        session file."""
        self.title = ""
        self.by: TitleSource = ""
        self._side = side
        self._told = told
        self._save = save
        self._work: asyncio.Task[None] | None = None

    def first_prompt(self, prompt: str, *, tell: bool) -> None:
        """Title an untitled session after ``prompt``; ``tell``: say so now (it is saved)."""
        if self.title:
            return
        self.title, self.by = title_of(prompt), "prompt"
        if tell:
            self._told(self.title)
        if self._side.enabled:
            self._work = asyncio.create_task(self._small_title(prompt))

    def rename(self, title: str) -> str:
        """The user's title from now on, cut to a listing's length; returns it as kept."""
        self.title, self.by = title_of(without_controls(title)), "user"
        self._save(self.title, "user")
        self._told(self.title)
        return self.title

    def restore(self, title: str, by: TitleSource) -> None:
        """The title a resumed session was saved with (a listing's first line of the first
        prompt, cut here as a new session's is)."""
        self.title, self.by = (title_of(title) if by == "prompt" else title), by

    def save_again(self) -> None:
        """Write the title to a new session file (a rewind's), unless the file gives it."""
        if self.by in ("user", "model"):
            self._save(self.title, self.by)

    async def settle(self) -> None:
        """Wait for the small model's title, if one was asked for."""
        if self._work is not None:
            await asyncio.wait([self._work])

    async def aclose(self) -> None:
        if self._work is not None:
            self._work.cancel()
            await asyncio.wait([self._work])

    async def _small_title(self, prompt: str) -> None:
        """The small model's title replaces the first line of the prompt, when it gives one
        (and the user has not named the session meanwhile)."""
        try:
            title = await self._side.title(prompt)
        except Exception:  # providers report failures as events: a bug must not end the prompt
            return
        if title and self.by == "prompt":
            self.title, self.by = title, "model"
            self._save(title, "model")
            self._told(title)
