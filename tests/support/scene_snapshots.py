"""A scenario's last frame as a snapshot, the same way for every page of scenes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from neocode_tui.tui.scenarios import Scenario, play


def scene_matches(scenario: Scenario, size: tuple[int, int], snap_compare: Any, tmp_path: Path) -> bool:
    """Play ``scenario`` in a fresh project and compare its last frame at ``size``."""
    app = scenario.build_app(scenario.prepare(tmp_path))

    async def run_before(pilot: Any) -> None:
        await play(scenario, pilot)
        # Textual moves a scrollbar's thumb only when the offset changes: one that grew while
        # the view followed the stream is synced, so the frame does not depend on timing.
        view = app.conversation
        view.vertical_scrollbar.position = round(view.scroll_y)
        await pilot.pause()

    return bool(snap_compare(app, terminal_size=size, run_before=run_before))
