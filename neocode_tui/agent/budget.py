"""A spending limit for a session (``max_budget_usd``), held before each request.

The request about to go is priced before it is sent, as the most it may cost as far as can
be told (``Meter.next_request_cost``): a limit is for not passing it, so the estimate errs
high. Where nobody can be asked (``-p``) the run stops there; in the app the user is warned
once the session has spent 80 % and asked before a request would pass the limit (a yes
holds for the rest of the session).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from decimal import Decimal

from neocode_tui.agent.meter import Meter
from neocode_tui.agent.pricing import find_model, format_cost
from neocode_tui.events import ErrorInfo
from neocode_tui.vocabulary import NoticeLevel

WARN_AT = Decimal("0.8")
Ask = Callable[[str], Awaitable[bool]]


class Budget:
    def __init__(
        self, meter: Meter, limit: Callable[[], float | None],
        notice: Callable[[NoticeLevel, str], None],
    ) -> None:
        self._meter = meter
        self._limit = limit
        self._notice = notice
        self.ask: Ask | None = None
        """How the user is asked to go past the limit; None: nobody can be (stop there)."""
        self._warned = False
        self._passed = False
        self._unpriced_told = False
        self._sent_estimate = Decimal(0)
        self._unreported = Decimal(0)
        """What requests whose server reported no usage cost, as estimated before they went:
        a server that never says its counts must not make them free."""

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

    def counted(self, reported: bool) -> None:
        """After a request: its estimate stands in when the server reported no usage; then
        the 80 % warning, once."""
        if not reported:
            self._unreported += self._sent_estimate
        self._sent_estimate = Decimal(0)
        limit, spent = self.limit, self.spent
        if limit is None or spent is None or self._warned or spent < WARN_AT * limit:
            return
        self._warned = True
        self._notice("warning", f"this session has cost {format_cost(spent)}, "
                     f"{spent / limit:.0%} of its budget of {format_cost(limit)} (max_budget_usd)")

    async def before_request(self) -> ErrorInfo | None:
        """None to send the next request; why not, when it would pass the limit."""
        limit = self.limit
        if limit is None or self._passed:
            return None
        upcoming = self._meter.next_request_cost()
        if upcoming is None:
            if not self._unpriced_told:
                self._unpriced_told = True
                self._notice("warning", "max_budget_usd cannot be held: the model has no known price")
            return None
        spent = self.spent or Decimal(0)
        self._sent_estimate = upcoming
        if spent + upcoming <= limit:
            return None
        said = (f"the next request (about {format_cost(upcoming)}) would take this session, at "
                f"{format_cost(spent)} so far, past its budget of {format_cost(limit)}")
        if self.ask is not None and await self.ask(said):
            self._passed = True
            return None
        return ErrorInfo(kind="budget", message=f"stopped: {said} (--max-budget-usd)")


def unpriced(model: str, base_url: str) -> str | None:
    """Why a budget cannot be held for ``model``: no price known for it."""
    if find_model(model, base_url) is not None:
        return None
    return (f"--max-budget-usd cannot be held: genai-prices has no price for {model!r}, so "
            "what a request costs is unknown (leave out the budget for a local model)")
