"""The status bar: which model, what needs approval, what it cost, and whether it is busy.

Everything it shows is state set by the app plus an injected clock, so a pinned clock (in
snapshots and demo recordings) fixes every character, the spinner included.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from neocode_tui.events import Usage

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
OFFLINE_LABEL = "offline scripted model — set OPENAI_API_KEY or ANTHROPIC_API_KEY"
SEPARATOR = ("  │  ", "dim")


def _tokens(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 10_000 else str(count)


def _elapsed(seconds: float) -> str:
    minutes, secs = divmod(int(max(seconds, 0)), 60)
    return f"{minutes}:{secs:02d}"


class StatusBar(Widget):
    """One line: the model on the left (cut first when narrow), the rest on the right."""

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    """

    provider = reactive("")
    model = reactive("")
    approval = reactive("ask")
    sandbox = reactive("")
    """Shown only when commands are not in the usual sandbox (off, unavailable, other)."""
    turn_usage: reactive[Usage] = reactive(Usage, always_update=True)
    session_usage: reactive[Usage] = reactive(Usage, always_update=True)
    working = reactive(False)
    started_at: reactive[float | None] = reactive(None)
    """When the current (or last) run started, on the injected clock."""
    finished_at: reactive[float | None] = reactive(None)
    retrying: reactive[str] = reactive("")
    """While a request is being retried: why, and when the next attempt goes."""

    def __init__(self, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._clock = clock

    def on_mount(self) -> None:
        self.set_interval(0.1, self._tick)

    def _tick(self) -> None:
        if self.working:
            self.refresh()

    def _left(self) -> Content:
        if self.provider == "scripted":
            return Content.styled(OFFLINE_LABEL, "$warning")
        return Content.assemble((f"{self.provider} · ", "dim"), (self.model, "bold"))

    def _right(self) -> Content:
        turn, session = self.turn_usage, self.session_usage
        parts: list[str | tuple[str, str]] = [
            SEPARATOR,
            f"approval: {self.approval}",
            *self._sandbox(),
            SEPARATOR,
            f"↑{_tokens(turn.input_tokens)} ↓{_tokens(turn.output_tokens)}",
            (f"  Σ ↑{_tokens(session.input_tokens)} ↓{_tokens(session.output_tokens)}", "dim"),
        ]
        now = self._clock()
        if self.started_at is not None:
            end = now if self.working or self.finished_at is None else self.finished_at
            parts += [SEPARATOR, _elapsed(end - self.started_at)]
        if self.working:
            spinner = SPINNER[int(now * 10) % len(SPINNER)]
            label = self.retrying or "working"
            parts += ["  ", (f"{spinner} {label}", "bold $warning" if self.retrying else "bold $accent")]
        return Content.assemble(*parts)

    def _sandbox(self) -> list[str | tuple[str, str]]:
        if not self.sandbox:
            return []
        unconfined = not self.sandbox.startswith("sandbox:")  # "no sandbox", "sandbox off"
        return [SEPARATOR, (self.sandbox, "bold $warning" if unconfined else "")]

    def render(self) -> Content:
        right = self._right()
        room = max(self.size.width - right.cell_length, 0)
        return self._left().truncate(room, ellipsis=True, pad=True) + right
