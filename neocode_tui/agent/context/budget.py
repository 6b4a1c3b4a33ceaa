"""A spending limit for a session (``max_budget_usd``), held before each of its requests.

Every request the session makes goes through here first: the main loop's, each subagent's
(its own loop, ``Subagents``), and side work (titles, compaction summaries). Each is priced
before it is sent, as the most it may cost as far as can be told (``Meter.next_request_cost``
for a loop, ``Meter.cost_of`` for a one-off request): a limit is for not passing it, so the
estimate errs high. A request admitted holds its estimate until its usage is counted, so
concurrent requests (children run at the same time) cannot all pass on the same room.
Where nobody can be asked (``-p``) the first refusal stops the whole session: every later
request is refused too. In the app the user is warned once the session has spent 80 % and
asked before a request would pass the limit (a yes holds for the rest of the session).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from decimal import Decimal

from neocode_tui.agent.context.meter import Meter
from neocode_tui.agent.context.pricing import find_model, format_cost
from neocode_tui.events import ErrorInfo
from neocode_tui.vocabulary import NoticeLevel

WARN_AT = Decimal("0.8")
MAIN, TITLE, SUMMARY = "main", "title", "summary"
"""Who a request's estimate is held for: the main loop, a title, a compaction summary (a
subagent holds its own, by its loop)."""
Ask = Callable[[str], Awaitable[bool]]


class Budget:
    def __init__(
        self, meter: Meter, limit: Callable[[], float | None],
        notice: Callable[[NoticeLevel, str], None], ask: Ask | None = None,
    ) -> None:
        """``ask``: how the user is asked to go past the limit; None: nobody can be (stop
        there)."""
        self._meter = meter
        self._limit = limit
        self._notice = notice
        self._ask = ask
        self._warned = False
        self._passed = False
        self._unpriced_told = False
        self._stopped: ErrorInfo | None = None
        """Why the session was stopped, where nobody could be asked: every request after."""
        self._held: dict[object, Decimal] = {}
        """The estimates of the requests admitted and not yet counted, by who sent them."""
        self._unreported = Decimal(0)
        """What requests whose server reported no usage cost, as estimated before they went:
        a server that never says its counts must not make them free."""

    @property
    def meter(self) -> Meter:
        """The session's meter: what it has spent, and the settings a child's is made with."""
        return self._meter

    @property
    def limit(self) -> Decimal | None:
        value = self._limit()
        return None if value is None else Decimal(str(value))

    @property
    def spent(self) -> Decimal | None:
        cost = self._meter.cost
        if cost is None and not self._unreported:
            return None
        return (cost or Decimal(0)) + self._unreported

    def counted(self, reported: bool, who: object = MAIN) -> None:
        """After a request of ``who`` (its usage counted by the meter already): its estimate
        stands in when the server reported no usage; then the 80 % warning, once."""
        estimate = self._held.pop(who, Decimal(0))
        if not reported:
            self._unreported += estimate
        limit, spent = self.limit, self.spent
        if limit is None or spent is None or self._warned or spent < WARN_AT * limit:
            return
        self._warned = True
        self._notice("warning", f"this session has cost {format_cost(spent)}, "
                     f"{spent / limit:.0%} of its budget of {format_cost(limit)} (max_budget_usd)")

    async def before_request(self) -> ErrorInfo | None:
        """None to send the main loop's next request; why not, when it would pass the limit."""
        return await self.admit(MAIN, self._meter.next_request_cost)

    async def admit(self, who: object, upcoming: Callable[[], Decimal | None]) -> ErrorInfo | None:
        """None to send ``who``'s request, whose cost is at most ``upcoming()`` (held until
        ``counted``); why not, when with what is spent and held it would pass the limit."""
        limit = self.limit
        if limit is None:
            return None
        if self._stopped is not None:
            return self._stopped
        estimate = upcoming()
        if estimate is None:
            self._say_unpriced()
            return None
        committed = (self.spent or Decimal(0)) + sum(self._held.values(), Decimal(0))
        if self._passed or committed + estimate <= limit:
            self._held[who] = estimate
            return None
        said = (f"the next request (about {format_cost(estimate)}) would take this session, at "
                f"{format_cost(committed)} so far, past its budget of {format_cost(limit)}")
        if self._ask is not None:
            if await self._ask(said):
                self._passed = True
                self._held[who] = estimate
                return None
            return ErrorInfo(kind="budget", message=f"stopped: {said} (--max-budget-usd)")
        self._stopped = ErrorInfo(kind="budget", message=f"stopped: {said} (--max-budget-usd)")
        return self._stopped

    def _say_unpriced(self) -> None:
        if not self._unpriced_told:
            self._unpriced_told = True
            self._notice("warning", "max_budget_usd cannot be held: the model has no known price")


def unpriced(model: str, base_url: str) -> str | None:
    """Why a budget cannot be held for ``model``: no price known for it."""
    if find_model(model, base_url) is not None:
        return None
    return (f"--max-budget-usd cannot be held: genai-prices has no price for {model!r}, so "
            "what a request costs is unknown (leave out the budget for a local model)")
