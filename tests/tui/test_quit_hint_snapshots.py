"""The first Ctrl+C's "press it again" at 80x24 and 120x40, as SVG snapshots (each looked at
before it was committed): it takes the status bar's line, below the input, the way Claude
Code's footer says it, and the conversation above stays uncovered."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocode_tui.tui import key_actions
from neocode_tui.tui.scenarios import play
from tests.support.reading import screen_text
from tests.support.subagent_scenes import FOLDED
from tests.support.waits import wait_until


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_the_quit_hint_is_below_the_input(size: tuple[int, int], snap_compare, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(key_actions, "QUIT_WINDOW", 600.0)  # still up when a busy machine takes its picture
    app = FOLDED.build_app(FOLDED.prepare(tmp_path))

    async def run_before(pilot) -> None:
        await play(FOLDED, pilot)
        await pilot.press("ctrl+c")
        await wait_until(lambda: "Press Ctrl+C again to quit." in screen_text(app), pause=pilot.pause,
                         what="the hint")

    assert snap_compare(app, terminal_size=size, run_before=run_before)
