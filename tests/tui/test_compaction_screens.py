"""A compaction you can see, at 80x24 and 120x40: the folded line that says what it
summarised and how much room it made, and the summary under it once unfolded."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocode_tui.tui.scenarios import play
from tests.support.screens import SCREENS as SCENARIOS
from tests.support.waits import screen_shows

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("unfolded", [False, True], ids=["folded", "unfolded"])
def test_compaction_screen(size: str, unfolded: bool, snap_compare, tmp_path: Path) -> None:
    scenario = SCENARIOS["compacted"]
    app = scenario.build_app(scenario.prepare(tmp_path))

    async def run_before(pilot) -> None:
        await play(scenario, pilot)
        await screen_shows(app, pilot, "⇣ compacted 2 messages")
        if unfolded:
            await pilot.press("ctrl+t")
            await screen_shows(app, pilot, "/uncompact brings it back until you send again")

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
