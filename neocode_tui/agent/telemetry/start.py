"""Whether telemetry runs, decided once per session: off unless the user's ``telemetry``
setting (``NEOCODE_ENABLE_TELEMETRY=1``) says so, and then only with the SDK installed. Off,
nothing of OpenTelemetry is imported and nothing is sent."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Protocol

from neocode_tui.agent.loop_events import LoopEvent
from neocode_tui.settings.model import Settings

INSTALL = "pip install 'neocode-tui[telemetry]'"


class Recorder(Protocol):
    """What the session tells telemetry: each event, each prompt, and the end."""

    def observe(self, event: LoopEvent) -> None: ...

    def prompted(self, text: str) -> None: ...

    def shutdown(self) -> None:
        """Send what is left and stop (it blocks: call it off the event loop)."""


def start_telemetry(settings: Settings, session_id: Callable[[], str | None], model: Callable[[], str],
                    say: Callable[[str], None], environ: Mapping[str, str] | None = None) -> Recorder | None:
    """A recorder when the user turned telemetry on and the SDK is there; None otherwise
    (``say`` tells why, when it was asked for and cannot run)."""
    if not settings.telemetry:
        return None
    environ = os.environ if environ is None else environ
    protocol = environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
    if protocol != "http/protobuf":
        say(f"telemetry is off: OTEL_EXPORTER_OTLP_PROTOCOL={protocol} is not supported (http/protobuf is)")
        return None
    try:
        from neocode_tui.agent.telemetry.otel import OtelRecorder
    except ImportError:
        say(f"telemetry is on but the OpenTelemetry SDK is not installed: {INSTALL}")
        return None
    return OtelRecorder(session_id, model, log_prompts=environ.get("OTEL_LOG_USER_PROMPTS") == "1",
                        signals={signal: environ.get(f"OTEL_{signal.upper()}_EXPORTER", "otlp") != "none"
                                 for signal in ("metrics", "logs", "traces")})
