"""Every event a loop or session sends its listener, kept for the test to read."""

from __future__ import annotations

from typing import Any

from neocode_tui.agent.loop_events import LoopEvent, Notice


class Recorder:
    """A sink that keeps every loop event."""

    def __init__(self) -> None:
        self.events: list[LoopEvent] = []

    def __call__(self, event: LoopEvent) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        return [event for event in self.events if isinstance(event, kind)]


def notices(recorder: Recorder) -> str:
    """The messages of every notice heard, one a line."""
    return "\n".join(notice.message for notice in recorder.of(Notice))
