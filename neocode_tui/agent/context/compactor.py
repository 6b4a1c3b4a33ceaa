"""When and how a session's history is compacted: on request (/compact), before a prompt
past the threshold, between the turns of a long run, and after the server said the context
overflowed (the prompt is then sent again, once).

It holds no conversation of its own: it reads the history through ``messages``, runs the
prompt through ``run``, and hands a summary back through ``replaced``, which the session
writes to its file and shows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Literal, Protocol

from neocode_tui.agent.context.budget import SUMMARY, Budget
from neocode_tui.agent.context.figure import ASSUMED_WINDOW, CHARS_PER_TOKEN, about, estimate_tokens, is_overflow
from neocode_tui.agent.context.meter import Meter
from neocode_tui.agent.context.summary import compact_messages
from neocode_tui.agent.loop_events import Compaction, RunFinished, StopReason
from neocode_tui.agent.session import SideWork
from neocode_tui.chat import Image, Message
from neocode_tui.events import ErrorInfo, Usage
from neocode_tui.known_secrets import Secrets
from neocode_tui.settings.model import Settings
from neocode_tui.vocabulary import NoticeLevel

ON_REQUEST = "on request"
"""Why a compaction the user asked for (/compact) runs: PreCompact's ``manual`` trigger."""
CONTINUE_AFTER_OVERFLOW = (
    "The history was compacted because it no longer fitted your context window. "
    "Continue the task from where you left off."
)



class CompactionHost(Protocol):
    """The conversation compacted, read as it is: its history and the settings that say
    when (``compact_threshold``)."""

    @property
    def messages(self) -> list[Message]: ...

    @property
    def settings(self) -> Settings: ...


PreCompact = Callable[[Literal["manual", "auto"], str], Awaitable[str | None]]
"""The PreCompact hooks: why they block the compaction, or None."""


class Compactor:
    def __init__(
        self, host: CompactionHost, meter: Meter, budget: Budget, side: SideWork, secrets: Secrets, *,
        run: Callable[[str, Sequence[Image], Sequence[Message]], Awaitable[RunFinished]],
        pre_compact: PreCompact, counted: Callable[[Usage], None],
        replaced: Callable[[list[Message]], None], told: Callable[[Compaction], None],
        notice: Callable[[NoticeLevel, str], None],
        ended: Callable[[StopReason, ErrorInfo | None], RunFinished],
    ) -> None:
        """``counted``: a summary's usage, for the session's totals and file; ``replaced``:
        the history is now these messages; ``told``: what the compaction did, for the user;
        ``ended``: the end of a prompt not sent."""
        self._meter, self._budget, self._side, self._secrets = meter, budget, side, secrets
        self._host = host
        self._run = run
        self._pre_compact = pre_compact
        self._counted = counted
        self._replaced = replaced
        self._told = told
        self._notice = notice
        self._ended = ended
        self._work: asyncio.Task[bool] | None = None
        self._cancelled = False
        self._done_in_run = False
        self._gave_up_on: int | None = None
        """The history (``Meter.histories``) an automatic compaction failed on: not tried on
        it again before each prompt, each a summary request that would fail the same way."""

    @property
    def running(self) -> bool:
        return self._work is not None and not self._work.done()

    def cancel(self) -> bool:
        """Stop the compaction in progress; False when none was."""
        if self._work is None or self._work.done():
            return False
        self._work.cancel()
        return True

    async def aclose(self) -> None:
        work = self._work
        if self.cancel() and work is not None:
            await asyncio.wait([work])

    async def compact(self, instructions: str, reason: str = ON_REQUEST) -> bool:
        """Compact now; a cancel (Esc) leaves the conversation as it was and returns False."""
        self._cancelled = False
        self._work = work = asyncio.create_task(self._compact(instructions, reason))
        try:
            return await work
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            self._cancelled = True
            self._notice("warning", "compaction interrupted: the conversation is unchanged")
            return False
        finally:
            self._work = None

    async def before_prompt(self, prompt: str) -> RunFinished | None:
        """Past the threshold, or with a history more than fits (a resumed long session,
        of which the meter counts only the newest messages that fit), the history is
        compacted before ``prompt`` is sent. When it cannot be, a history over the window
        is sent from its newest messages that fit, and the user is told how many were left
        out; it is not tried again on that history but by /compact. The end of the run when
        it is not sent (interrupted, or it cannot fit)."""
        self._done_in_run = False
        left_out = self._meter.sent_from
        if not left_out and not self._meter.over_threshold(prompt):
            return None
        reason = ("the history is more than fits the window" if left_out
                  else f"the context passed {self._threshold_words}")
        if self._gave_up_on != self._meter.histories:
            if await self.compact("", reason):
                return None
            if self._cancelled:  # Esc while compacting: the prompt is not sent
                return self._ended("cancelled", None)
            self._gave_up_on = self._meter.histories
        if self._meter.over_window(prompt):
            self._meter.refit(prompt)
            if self._meter.over_window(prompt):  # not even the last prompt's turn fits
                return self._not_sent(prompt)
        if self._meter.sent_from:
            self._say_trimmed()
        return None

    def _say_trimmed(self) -> None:
        total, left_out = len(self._host.messages), self._meter.sent_from
        self._notice("warning", (
            f"not compacted, so this request sends only the newest {total - left_out:,} "
            f"messages ({about(self._meter.context.tokens)} tokens, which fit the model's "
            f"window): the oldest {left_out:,} of {total:,} are left out. The session file and "
            "the screen keep them all; /compact tries again"))

    async def between_turns(self) -> None:
        """Within a run, before its next request: past the threshold, the older history is
        compacted and the run goes on. Once per run at most: what is left over the threshold
        after that is the run's own work, which a summary of the past cannot shrink. A cancel
        stops the run here as anywhere (the transcript is valid between turns)."""
        if self._done_in_run or not self._meter.over_threshold(""):
            return
        self._done_in_run = True
        await self._compact("", f"the context passed {self._threshold_words} during the run")

    async def run(self, text: str, images: list[Image], ran: Sequence[Message] = ()) -> RunFinished:
        """The run (``ran``: the calls run before the prompt, kept on it); when the server says
        the context overflowed, the history is compacted and the prompt sent again, once: a
        history that overflows after that will not fit."""
        finished = await self._run(text, images, ran)
        if finished.reason != "error" or not is_overflow(finished.error):
            return finished
        messages = self._host.messages
        unanswered = messages[-1] if messages else None
        if unanswered is not None and (unanswered.role, unanswered.content) == ("user", text):
            messages.pop()  # asked again after the compaction, not summarised
        else:
            unanswered = None
        if not messages or not await self.compact("", "the model's context overflowed"):
            # Nothing before this prompt to summarise (it alone is too long), or no summary.
            if unanswered is not None:
                messages.append(unanswered)
            return finished
        if unanswered is None:
            return await self._run(CONTINUE_AFTER_OVERFLOW, (), ())
        return await self._run(text, images, ran)

    @property
    def _threshold_words(self) -> str:
        return f"{self._host.settings.compact_threshold:.0%} of the window"

    def _not_sent(self, prompt: str) -> RunFinished:
        """The end of a prompt that was not sent: with the history it is more than the window
        and compaction failed, so the server could only refuse it, after its whole upload."""
        known = self._meter.context_window
        window = f"{known:,} tokens" if known else (
            f"{ASSUMED_WINDOW:,} tokens assumed: set NEOCODE_CONTEXT_WINDOW to the real one"
        )
        tokens = about(self._meter.context.tokens + estimate_tokens(prompt))
        message = (
            f"not sent: the conversation and prompt are {tokens} tokens, more than the model's "
            f"context window ({window}), and could not be compacted; /compact tries again, "
            "/clear starts afresh"
        )
        return self._ended("error", ErrorInfo(kind="context_overflow", message=message))

    async def _compact(self, instructions: str, reason: str) -> bool:
        blocked = await self._pre_compact("manual" if reason == ON_REQUEST else "auto", instructions)
        if blocked is not None:
            self._notice("warning", f"not compacted: a PreCompact hook blocked it: {blocked}")
            return False
        provider, before = self._side.provider(), self._meter.context.tokens
        refused = await self._budget.admit(  # a summary is a request too, of the whole history
            SUMMARY, lambda: self._meter.cost_of(before, model=provider.model))
        if refused is not None:
            self._notice("error", f"could not compact: {refused.message}")
            return False
        try:
            result = await compact_messages(
                provider, self._host.messages, secrets=self._secrets, instructions=instructions,
                budget_chars=self._meter.working_window * CHARS_PER_TOKEN // 2,
            )
        except asyncio.CancelledError:
            self._budget.counted(False, SUMMARY)  # it may have been charged: as estimated
            raise
        self._side.count(result.usage)
        self._budget.counted(result.usage is not None, SUMMARY)
        if result.usage is not None:
            self._counted(result.usage)
        if result.error:
            self._notice("error", f"could not compact: {result.error}")
            return False
        self._replaced(result.messages)
        self._told(Compaction(reason=reason, summarised=result.summarised, kept=result.kept,
                              tokens_before=before, tokens_after=self._meter.context.tokens,
                              summary=result.summary))
        return True
