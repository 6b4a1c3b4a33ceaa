"""Scripted sessions in the real app: the harness (``driver``) and the demo scripts."""

from neocode_tui.tui.scenarios.driver import (
    SIZE,
    Driver,
    Observer,
    Press,
    Release,
    Scenario,
    Scroll,
    Step,
    StepProvider,
    Type,
    play,
)
from neocode_tui.tui.scenarios.scripts import SCENARIOS

__all__ = [
    "SCENARIOS", "SIZE", "Driver", "Observer", "Press", "Release", "Scenario", "Scroll", "Step",
    "StepProvider", "Type", "play",
]
