"""The status bar: which model, what needs approval, what it cost, how full the model's
context is, and whether it is busy.

Everything it shows is state set by the app plus an injected clock, so a pinned clock (in
snapshots and demo recordings) fixes every character, the spinner included.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import TYPE_CHECKING

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from neocode_tui.agent.context import format_cost
from neocode_tui.terminal_text import visible
from neocode_tui.tui.keys import KeyNames
from neocode_tui.vocabulary import is_offline

if TYPE_CHECKING:
    from neocode_tui.agent import LoopEvent
    from neocode_tui.agent.context import ContextFigure, Headroom
    from neocode_tui.agent.session import AgentSession
    from neocode_tui.events import StreamRetry, Usage


SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
OFFLINE_LABEL = "offline scripted model — set OPENAI_API_KEY or ANTHROPIC_API_KEY"
SEPARATOR = ("  │  ", "dim")
Part = Content | str
KEEP = 99
PROVIDER_RANK = 3
"""The provider's name goes after the totals, cost and turn's tokens."""
ELAPSED_RANK = 4
"""The run's time stays after the provider's name goes, and goes before the sandbox's label,
the effort and the key of the background commands' view."""


def _width(part: Part) -> int:
    return part.cell_length if isinstance(part, Content) else len(part)


def _tokens(count: int | None) -> str:
    """"–" when the server did not say: unknown is not zero."""
    if count is None:
        return "–"
    return f"{count / 1000:.1f}k" if count >= 10_000 else str(count)


def _counts(usage: Usage | None) -> tuple[str, str]:
    """Input and output tokens; no tally yet shows as an empty one."""
    if usage is None:
        return "0", "0"
    return _tokens(usage.input_tokens), _tokens(usage.output_tokens)


def _percent(figure: ContextFigure) -> str:
    """"42%", "<1%", "~42%" for an estimate, "–" when the window is unknown."""
    fraction = figure.fraction
    if fraction is None:
        return "–"
    shown = "<1%" if 0 < fraction < 0.01 else f"{fraction:.0%}"
    return f"~{shown}" if figure.estimated and not shown.startswith("<") else shown


GOAL_SHOWN = 24
"""Characters of a goal's condition the bar shows (``/goal`` shows it whole)."""


def _goal_parts(condition: str, turn: int) -> list[tuple[int, Part]]:
    """"◎ goal: the tests pass · turn 2"; the condition goes first when room runs out."""
    line = " ".join(visible(condition).split())
    short = line if len(line) <= GOAL_SHOWN else line[: GOAL_SHOWN - 1] + "…"
    return [(KEEP, Content.styled("◎ goal", "bold $accent")), (5, Content.styled(f": {short}", "italic")),
            (KEEP, f" · turn {turn}")]


def _elapsed(seconds: float) -> str:
    minutes, secs = divmod(int(max(seconds, 0)), 60)
    return f"{minutes}:{secs:02d}"


class StatusBar(Widget):
    """One line: the model on the left, the rest on the right; when narrow, the least
    needed parts go first."""

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    StatusBar.-hint { height: auto; max-height: 3; }
    """

    provider = reactive("")
    model = reactive("")
    approval = reactive("ask")
    allowed: reactive[tuple[str, ...]] = reactive(())
    """What a "yes for this session" allows (``pytest …``, ``write_file``)."""
    sandbox = reactive("")
    """Shown only when commands are not in the usual sandbox (off, unavailable, other)."""
    turn_usage: reactive[Usage | None] = reactive(None, always_update=True)
    """None until the app sets a tally: the first frame shows zeros without making one
    (usage is a pydantic model, and the first frame is drawn before pydantic loads)."""
    session_usage: reactive[Usage | None] = reactive(None, always_update=True)
    working = reactive(False)
    waiting = reactive(False)
    """An approval is asked: the run waits for the user, not the model."""
    started_at: reactive[float | None] = reactive(None)
    """When the current (or last) run started, on the injected clock."""
    finished_at: reactive[float | None] = reactive(None)
    retrying: reactive[str] = reactive("")
    """While a request is being retried: why, and when the next attempt goes."""
    context: reactive[ContextFigure | None] = reactive(None)
    """How full the model's window is (None: not measured yet)."""
    cost: reactive[Decimal | None] = reactive(None)
    """The session's dollars so far; None when no price is known."""
    cache_rate: reactive[float | None] = reactive(None)
    """The share of input tokens read from the server's cache (None or 0: not shown)."""
    effort = reactive("")
    """The effort level, when one is set."""
    warn_at = 0.75
    """The context fraction from which the meter takes the warning colour."""

    commands = reactive(0)
    """Background commands running."""
    hint = reactive("")
    """Words for a moment in place of the rest (``say``)."""
    goal: reactive[tuple[str, int] | None] = reactive(None)
    """The active ``/goal``'s condition and the turn it is on."""
    limit = reactive("")
    """The tightest rate limit, when little of it is left, with its reset."""

    def __init__(
        self, clock: Callable[[], float], *, commands: Callable[[], int] = lambda: 0,
        id: str | None = None,
    ) -> None:
        """``commands``: how many background commands run, read at each tick (a count
        that changes while nothing else does, when one ends)."""
        super().__init__(id=id)
        self._clock = clock
        self._commands = commands
        self.keys = KeyNames()
        """The keys the bar names (the app sets the user's)."""
        self._headroom: Headroom | None = None
        self._wait: tuple[StreamRetry, float] | None = None
        """A rate limit's long wait: its retry event and when on the clock it ends."""

    def say(self, words: str, seconds: float) -> None:
        """``words`` in place of the bar for ``seconds`` (a key's "press it again"), where
        Claude Code's footer says them too: below the input, never over the conversation."""
        self.hint = words
        self.set_timer(seconds, partial(self._unsay, words))

    def _unsay(self, words: str) -> None:
        if self.hint == words:  # not a later one
            self.hint = ""

    def watch_hint(self, hint: str) -> None:
        self.set_class(bool(hint), "-hint")

    def on_mount(self) -> None:
        self.set_interval(0.1, self._tick)

    def _tick(self) -> None:
        self.commands = self._commands()  # drawn again only when it changes
        if self._headroom is not None:
            self.limit = self._headroom.warning()
        if self.working:
            self.refresh()

    def _left(self) -> tuple[Part, Content, int]:
        """The provider (dropped early), the model (cut last, never dropped) and the width
        the model needs before other parts go: all of it, but for the offline label's hint."""
        if is_offline(self.provider):
            return ("", Content.styled(OFFLINE_LABEL, "$warning"), OFFLINE_LABEL.index(" —"))
        if not self.provider:  # not known yet: the first frame may come before the settings
            return ("", Content(""), 0)
        model = Content.styled(visible(self.model), "bold")
        return (Content.styled(f"{self.provider} · ", "dim"), model, model.cell_length)

    def _allowed(self) -> Part:
        """A count: the grants themselves (a long compound command) would crowd out the rest;
        ``/permissions`` and the approval dialog name them."""
        return Content.styled(f" +{len(self.allowed)} allowed", "$success") if self.allowed else ""

    def _groups(self) -> list[list[tuple[int, Part]]]:
        """The right side, in groups parted by a separator, each part with the rank at which
        it goes when the bar is too narrow (``KEEP``: never)."""
        turn_in, turn_out = _counts(self.turn_usage)
        session_in, session_out = _counts(self.session_usage)
        effort = [(5, f"  effort: {self.effort}")] if self.effort else []
        groups: list[list[tuple[int, Part]]] = [
            [(KEEP, f"approval: {self.approval}"), *effort, (7, self._allowed())],
            [(2, f"↑{turn_in} ↓{turn_out}"), (0, Content.styled(f"  Σ ↑{session_in} ↓{session_out}", "dim"))],
        ]
        if self.sandbox:
            unconfined = not self.sandbox.startswith("sandbox:")  # "no sandbox", "sandbox off"
            groups.insert(1, [(KEEP if unconfined else 5, Content.styled(
                self.sandbox, "bold $warning" if unconfined else ""))])
        groups.append(self._context_and_cost())
        now = self._clock()
        if self.started_at is not None:
            end = now if self.working or self.finished_at is None else self.finished_at
            groups.append([(ELAPSED_RANK, _elapsed(end - self.started_at))])
        if self.goal is not None:
            groups.append(_goal_parts(*self.goal))
        if self.commands:
            running = f"{self.commands} command{'s' * (self.commands != 1)} running"
            jobs = [(5, Content.styled(f" · {self.keys.jobs}", "dim"))] if self.keys.jobs else []
            groups.append([(KEEP, Content.styled(running, "bold $accent")), *jobs])
        if self.limit:
            groups.append([(KEEP, Content.styled(f"⚠ {self.limit}", "bold $warning"))])
        if self.working:
            groups.append([(KEEP, self._state(now))])
        return groups

    def _state(self, now: float) -> Content:
        if self.waiting:
            return Content.styled("waiting for you", "bold $warning")
        spinner = SPINNER[int(now * 10) % len(SPINNER)]
        if self._wait is not None:
            retry, until = self._wait
            stop = self.keys.press("interrupt", "stops")
            line = retry.status_line(left=until - now) + (f" · {stop}" if stop else "")
            return Content.styled(f"{spinner} {visible(line)}", "bold $warning")
        label = visible(self.retrying) or "working"
        return Content.styled(f"{spinner} {label}", "bold $warning" if self.retrying else "bold $accent")

    def _context_and_cost(self) -> list[tuple[int, Part]]:
        """"ctx 42%  $0.0123"; left out for the offline scripted model, which has neither."""
        figure = self.context
        if figure is None or (
            is_offline(self.provider) and figure.window is None and self.cost is None
        ):
            return []
        fraction = figure.fraction or 0
        warn = fraction >= self.warn_at
        cached: list[tuple[int, Part]] = (
            [(0, Content.styled(f" cache {self.cache_rate:.0%}", "dim"))] if self.cache_rate else [])
        return [(KEEP if warn else 6, Content.styled(f"ctx {_percent(figure)}", "bold $warning" if warn else "")),
                (1, "  " + format_cost(self.cost)), *cached]

    # -- kept in step by the app ---------------------------------------------------------

    def show_session(self, session: AgentSession) -> None:
        """Which provider, model, mode and sandbox the session runs with, and what its yeses
        allow (``/permissions`` may have taken one back)."""
        self.provider = session.provider.name
        self.model = session.model
        self.approval = session.approval
        # Only an effort the model is sent: /effort says when it is not.
        from neocode_tui.providers import sends_effort  # here: the first frame draws before providers load

        self.effort = session.effort if session.effort and sends_effort(session.provider) else ""
        self.warn_at = max(session.settings.compact_threshold - 0.1, 0.05)
        self.sandbox = session.sandbox.label
        self.allowed = tuple(sorted(session.loop.gate.allowed_for_session))

    def show_context(self, session: AgentSession) -> None:
        self.context = session.meter.context
        self.cost = session.meter.cost
        self.cache_rate = session.meter.cache_hit_rate

    def start_work(self) -> None:
        self.working, self.started_at, self.finished_at = True, self._clock(), None
        self.turn_usage = None

    def end_work(self) -> None:
        self.working, self.finished_at = False, self._clock()

    def track(self, event: LoopEvent, session: AgentSession) -> None:
        """The turn's tokens as the run's events report them, and the retry line while a
        request is retried (the event's type tag: no event class is imported for this)."""
        inner = event.event if event.type == "stream" else None
        if inner is not None and inner.type == "retry":
            self.retrying = inner.status_line()
            self._wait = (inner, self._clock() + inner.delay) if inner.waits_for_reset else None
            return
        if inner is not None and inner.type == "rate_limits":
            self._headroom = session.rate_limits
            self.limit = session.rate_limits.warning()
            return  # the headers came: the attempt has not answered yet
        if self.retrying and event.type in ("stream", "turn_finished", "run_finished"):
            self.retrying, self._wait = "", None  # the new attempt answers, or the run ended
        if event.type == "goal":
            self.goal = (event.condition, event.turns + 1) if event.state == "active" else None
        elif event.type == "turn_started":
            self.turn_usage = None
        elif inner is not None and inner.type in ("usage", "message_done") and inner.usage is not None:
            self.turn_usage = inner.usage if self.turn_usage is None else self.turn_usage.merged(inner.usage)
        elif event.type == "turn_finished" and event.usage is not None:
            self.turn_usage = event.usage
            self.session_usage = session.usage
        elif event.type == "subagent_event" and event.event.type == "turn_finished":
            self.session_usage = session.usage  # a subagent's request counts in the session's

    def render(self) -> Content:
        """What fits: the lowest-ranked parts go first, then the model's name is cut; the
        mode, an unconfined sandbox, a context near full and the state always stay."""
        if self.hint:
            return Content.styled(visible(self.hint), "bold $warning")
        provider, model, needed = self._left()
        groups = self._groups()
        ranked = sorted(({rank for group in groups for rank, _ in group} | {PROVIDER_RANK}) - {KEEP})
        for dropped in [-1, *ranked]:
            kept = [[part for rank, part in group if rank > dropped and _width(part)] for group in groups]
            right = Content.assemble(*(piece for group in kept if group for piece in (SEPARATOR, *group)))
            left = Content.assemble(provider if dropped < PROVIDER_RANK else "", model)
            if left.cell_length - model.cell_length + needed + right.cell_length <= self.size.width:
                break
        room = max(self.size.width - right.cell_length, 0)
        return left.truncate(room, ellipsis=True, pad=True) + right
