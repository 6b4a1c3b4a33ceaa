"""The status bar at the widths the app is used at: what stays when it is narrow (the model,
the mode, the state) and what goes first (totals, cost, the provider, then the time)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from textual.app import App, ComposeResult

from neocode_tui.agent.context.figure import ContextFigure
from neocode_tui.events import Usage
from tests.support.reading import screen_text

COMPOUND = "bash: cd /work/project/some/where && python -m pytest tests/unit -q -x"


class Bar(App[None]):
    def compose(self) -> ComposeResult:
        from neocode_tui.tui.widgets.status import StatusBar

        self.bar = StatusBar(lambda: 12.0)
        yield self.bar


async def status_line(width: int, *, working: bool = False, waiting: bool = False,
                      allowed: tuple[str, ...] = ()) -> str:
    app = Bar()
    async with app.run_test(size=(width, 3)) as pilot:
        bar = app.bar
        bar.provider, bar.model, bar.approval = "openai", "gpt-4o-2024-08-06", "auto-edit"
        bar.turn_usage = Usage(input_tokens=1200, output_tokens=340)
        bar.session_usage = Usage(input_tokens=45000, output_tokens=9100)
        bar.context = ContextFigure(tokens=30000, window=128000, estimated=False)
        bar.cost = Decimal("0.0123")
        bar.started_at = 0.0
        bar.finished_at = 7.0
        bar.allowed = allowed
        if working:
            bar.start_work()
        bar.waiting = waiting
        await pilot.pause()
        return screen_text(app).splitlines()[0]


@pytest.mark.parametrize("width", [60, 80, 120])
async def test_the_model_the_mode_and_the_state_stay_at_every_width(width: int) -> None:
    for working, waiting in ((False, False), (True, False), (True, True)):
        line = await status_line(width, working=working, waiting=waiting, allowed=(COMPOUND, "write_file"))
        assert "gpt-4o" in line, line
        assert "approval: auto-edit" in line, line
        assert ("working" in line) == (working and not waiting), line
        assert ("waiting for you" in line) == waiting, line
        assert len(line.rstrip()) <= width


async def test_at_80_columns_the_model_is_whole_and_totals_go_first() -> None:
    idle = await status_line(80)
    assert "openai · gpt-4o-2024-08-06" in idle or "gpt-4o-2024-08-06" in idle, idle
    assert "Σ" not in idle
    working = await status_line(80, working=True)
    assert "gpt-4o-2024-08-06" in working and "working" in working, working
    assert "│  0:00  │" in working, "the run's time stays when the provider's name goes"


async def test_grants_show_as_a_count_and_leave_room_at_120_columns() -> None:
    line = await status_line(120, allowed=(COMPOUND, "write_file"))
    assert "+2 allowed" in line and "pytest" not in line
    assert "openai · gpt-4o-2024-08-06" in line and "ctx 23%" in line, line


async def test_an_approval_asked_reads_waiting_for_you() -> None:
    line = await status_line(80, working=True, waiting=True)
    assert "waiting for you" in line and "working" not in line, line
