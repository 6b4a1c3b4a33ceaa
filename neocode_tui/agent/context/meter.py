"""How full the model's window is and what the session has cost: what the status bar,
``/context``, ``/cost`` and the compaction threshold read.

The session holds one ``Meter`` and tells it each request's usage as a turn finishes; the
meter only reads the conversation (its messages, the system prompt and tools it is sent
with), never changes it, so compaction, which does, stays the session's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Protocol

from neocode_tui.agent.context.figure import (
    ASSUMED_WINDOW,
    ContextFigure,
    ContextPart,
    breakdown,
    context_window,
    estimate_tokens,
    message_tokens,
    reported_tokens,
)
from neocode_tui.agent.context.history_fit import newest_that_fit
from neocode_tui.agent.context.pricing import request_cost
from neocode_tui.chat import Message, ToolSpec
from neocode_tui.events import Usage
from neocode_tui.settings.model import Settings


@dataclass
class ModelCost:
    """One model's share of the session: its requests' tokens and, when priced, dollars."""

    model: str
    usage: Usage = field(default_factory=Usage)
    requests: int = 0
    cost: Decimal | None = None
    side: bool = False
    """Side work (titles, summaries) done by the small model: counted apart."""


class MeterHost(Protocol):
    """The conversation a meter counts, read as it counts: the settings, model and history."""

    @property
    def settings(self) -> Settings: ...

    @property
    def model(self) -> str: ...

    @property
    def messages(self) -> list[Message]: ...


@dataclass(frozen=True)
class _Other:
    """Another conversation of the session (a subagent's): the session's settings, its own
    model and history."""

    session: MeterHost
    model_of: Callable[[], str]
    messages_of: Callable[[], list[Message]]

    @property
    def settings(self) -> Settings:
        return self.session.settings

    @property
    def model(self) -> str:
        return self.model_of()

    @property
    def messages(self) -> list[Message]:
        return self.messages_of()


class Meter:
    def __init__(
        self, host: MeterHost, *, system_prompt: Callable[[], str], tool_specs: Callable[[], list[ToolSpec]],
    ) -> None:
        self._host = host
        self._system_prompt = system_prompt
        self._tool_specs = tool_specs
        self._last_usage: Usage | None = None
        """The last request's usage, while the history is the one it was counted on."""
        self._counted = 0
        """How many messages that request's figure covers; later ones are estimated."""
        self._sent_from: int | None = None
        """Where what a request sends starts in the history; None: to be found (again)."""
        self._estimated: tuple[tuple[int, int, int], int] = ((0, 0, 0), 0)
        """The tokens estimated for the messages sent, and of which: asked once per frame
        would otherwise count a long history again each time."""
        self._costs: dict[tuple[str, bool], ModelCost] = {}
        self.histories = 0
        """How many times the history was replaced (compacted, resumed, cleared, rewound):
        what was found of one history no longer holds once this moves on."""
        self.largest_output = 0
        """The longest answer so far, in tokens: what a budget expects the next to be."""

    @property
    def context_window(self) -> int | None:
        """The model's window in tokens (the setting first); None when unknown."""
        settings = self._host.settings
        return context_window(self._host.model, settings.resolved_base_url, settings.context_window)

    @property
    def working_window(self) -> int:
        """The window the history is kept inside: the model's, else ``ASSUMED_WINDOW``."""
        return self.context_window or ASSUMED_WINDOW

    @property
    def context(self) -> ContextFigure:
        """What the next request carries at least: the last request as the server counted
        it plus what came after, else an estimate of the whole of what it sends."""
        reported = reported_tokens(self._last_usage)
        if reported is None:
            tokens = self.fixed_tokens() + self._sent_tokens()
        else:
            tokens = reported + sum(message_tokens(m) for m in self._host.messages[self._counted:])
        return ContextFigure(tokens=tokens, window=self.context_window, estimated=reported is None)

    @property
    def last_usage(self) -> Usage | None:
        """The tokens of the last request as the server counted them (None: not since the
        history changed)."""
        return self._last_usage

    def context_parts(self) -> list[ContextPart]:
        """What fills the window, estimated part by part (for ``/context``)."""
        return breakdown(self._system_prompt(), self._tool_specs(), self.sent())

    def fixed_tokens(self) -> int:
        """The instructions and tool definitions every request carries, estimated."""
        return sum(part.tokens for part in breakdown(self._system_prompt(), self._tool_specs(), [])[:-2])

    @property
    def sent_from(self) -> int:
        """How many of the oldest messages requests leave out: none, unless the history is
        more than fits below the compaction threshold and was not compacted (a resumed long
        session; ``refit``). Found once per history, when first asked, counting back from
        the newest: what is appended after is sent."""
        if self._sent_from is None:
            self._sent_from = self._fitted(0)
        return self._sent_from

    def sent(self) -> list[Message]:
        """The messages the next request sends."""
        messages, start = self._host.messages, self.sent_from
        return messages[start:] if start else messages

    def refit(self, prompt: str) -> int:
        """Leave out the oldest messages, if need be, so that the history and ``prompt``
        fit below the threshold; how many are left out now."""
        fitted = self._fitted(estimate_tokens(prompt))
        if fitted > self.sent_from:
            self._sent_from, self._last_usage = fitted, None
        return self.sent_from

    def _fitted(self, prompt_tokens: int) -> int:
        """Where the newest messages that fit below the threshold start; 0 (all of them)
        when the instructions and tools alone fill that much: leaving messages out would
        not make it fit. An empty history needs no window (nor the price list it is in)."""
        if not self._host.messages:
            return 0
        room = int(self.working_window * self._host.settings.compact_threshold) - self.fixed_tokens()
        return newest_that_fit(self._host.messages, room - prompt_tokens) if room > 0 else 0

    def _sent_tokens(self) -> int:
        messages, start = self._host.messages, self.sent_from
        key = (start, len(messages), id(messages[-1]) if messages else 0)
        if self._estimated[0] != key:
            self._estimated = key, sum(message_tokens(m) for m in messages[start:])
        return self._estimated[1]

    @property
    def costs(self) -> list[ModelCost]:
        """Tokens and cost per model, for the requests this session made since it was
        opened (a resumed file records no model per request)."""
        return list(self._costs.values())

    @property
    def cost(self) -> Decimal | None:
        """Dollars for the priced requests; None when no model used has a known price."""
        known = [entry.cost for entry in self._costs.values() if entry.cost is not None]
        return sum(known, Decimal(0)) if known else None

    @property
    def cache_hit_rate(self) -> float | None:
        """The share of input tokens read from the server's cache; None before any input."""
        total = sum((entry.usage for entry in self._costs.values()), Usage())
        if not total.input_tokens:
            return None
        return (total.cached_input_tokens or 0) / total.input_tokens

    def count(self, usage: Usage | None, model: str | None = None, *, side: bool = False) -> None:
        """One request's tokens (a turn's or a summary's), priced for ``model`` (the one in
        use unless named); ``side``: side work, kept apart."""
        if usage is None:
            return
        model = model or self._host.model
        entry = self._costs.setdefault((model, side), ModelCost(model, side=side))
        entry.usage = entry.usage + usage
        entry.requests += 1
        self.largest_output = max(self.largest_output, usage.output_tokens or 0)
        cost = request_cost(usage, model, self._host.settings.resolved_base_url)
        if cost is not None:
            entry.cost = (entry.cost or Decimal(0)) + cost

    def for_child(
        self, *, model: Callable[[], str], messages: Callable[[], list[Message]],
        system_prompt: Callable[[], str], tool_specs: Callable[[], list[ToolSpec]],
    ) -> Meter:
        """A meter of another conversation of this session (a subagent's), with these
        settings: what its next request may cost, expecting answers as long as here."""
        child = Meter(_Other(self._host, model, messages), system_prompt=system_prompt, tool_specs=tool_specs)
        child.largest_output = self.largest_output
        return child

    def next_request_cost(self) -> Decimal | None:
        """What the next request may cost at most as far as can be told: its whole input at
        the uncached price and an answer as long as the longest so far; None unpriced."""
        return self.cost_of(self.context.tokens)

    def cost_of(self, input_tokens: int, output_tokens: int | None = None,
                model: str | None = None) -> Decimal | None:
        """What a request of ``input_tokens`` may cost at most with ``model`` (the one in use
        unless named): uncached input and ``output_tokens`` of answer, else one as long as
        the longest so far; None unpriced."""
        output = self.largest_output if output_tokens is None else output_tokens
        estimate = Usage(input_tokens=input_tokens, output_tokens=output)
        return request_cost(estimate, model or self._host.model, self._host.settings.resolved_base_url)

    def turn_finished(self, usage: Usage | None, model: str | None = None) -> None:
        """A turn's request, as the server counted it, covers the history as it is now;
        ``model``: the fallback model that answered it, when not the one in use."""
        self._last_usage, self._counted = usage, len(self._host.messages)
        self.count(usage, model)

    def history_replaced(self, *, costs: bool) -> None:
        """The history is another one now (compacted, resumed, cleared): the last figure no
        longer counts it; ``costs``: neither do the costs (a different conversation)."""
        self._last_usage = self._sent_from = None
        self._estimated = ((0, 0, 0), 0)
        self.histories += 1
        if costs:
            self._costs = {}

    def over_threshold(self, prompt: str) -> bool:
        """Past the threshold with a history whose summary can bring it back: when the
        instructions and tools alone fill that much, compacting would only repeat."""
        if not self._host.messages:
            return False
        limit = self.working_window * self._host.settings.compact_threshold
        return self.context.tokens + estimate_tokens(prompt) >= limit > self.fixed_tokens()

    def over_window(self, prompt: str) -> bool:
        return self.context.tokens + estimate_tokens(prompt) > self.working_window
