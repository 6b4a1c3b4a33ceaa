"""OpenTelemetry, when the user turns it on: metrics, events and traces of prompts, model
requests (tokens, cost) and tool calls, in Claude Code's shape under NeoCode's names."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.telemetry.start import Recorder, start_telemetry

__all__ = ["Recorder", "start_telemetry"]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {"start": ("Recorder", "start_telemetry",)})
