"""The recorder on the OpenTelemetry SDK, exporting over OTLP/HTTP where the standard
``OTEL_EXPORTER_OTLP_*`` variables say (the SDK reads them itself: endpoint, headers,
export intervals). Batched in the SDK's own threads: nothing here waits on the network.

What is sent: counts, token numbers, cost, durations, tool names, models, the session id,
and an error's kind and (already scrubbed) message. Never a tool's arguments or output or a
file's content; a prompt's text only with ``OTEL_LOG_USER_PROMPTS=1`` (its length always).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from neocode_tui import __version__
from neocode_tui.agent.context import request_cost
from neocode_tui.agent.loop_events import (
    ApprovalRequested,
    LoopEvent,
    RunFinished,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)
from neocode_tui.events import Usage

SCOPE = "neocode"


class OtelRecorder:
    def __init__(self, session_id: Callable[[], str | None], model: Callable[[], str], *,
                 log_prompts: bool, signals: dict[str, bool]) -> None:
        self.session_id, self.model, self.log_prompts = session_id, model, log_prompts
        resource = Resource.create({"service.name": "neocode", "service.version": __version__})
        self.meters = MeterProvider(resource=resource, metric_readers=[
            PeriodicExportingMetricReader(OTLPMetricExporter())] if signals["metrics"] else [])
        self.logs = LoggerProvider(resource=resource)
        if signals["logs"]:
            self.logs.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter()))
        self.traces = TracerProvider(resource=resource)
        if signals["traces"]:
            self.traces.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        meter, self.logger = self.meters.get_meter(SCOPE, __version__), self.logs.get_logger(SCOPE, __version__)
        self.tracer = self.traces.get_tracer(SCOPE, __version__)
        self.tokens = meter.create_counter("neocode.token.usage", "tokens", "Tokens used, by type and model")
        self.cost = meter.create_counter("neocode.cost.usage", "USD", "Cost of the model requests, by model")
        self.tool_calls = meter.create_counter("neocode.tool.calls", "{call}", "Tool calls, by tool and outcome")
        self.sessions = meter.create_counter("neocode.session.count", "{session}", "Sessions prompted")
        self.decisions = meter.create_counter(
            "neocode.tool.decisions", "{decision}", "Tool calls accepted or rejected, by tool and who decided")
        self.tool_time = meter.create_histogram("neocode.tool.duration", "ms", "How long tools ran, by tool")
        self.request_time = meter.create_histogram(
            "neocode.api_request.duration", "ms", "How long model requests took, by model")
        self.counted = False
        self.interaction: Any = None
        self.request: Any = None
        self.request_started = 0.0
        self.tools: dict[str, Any] = {}
        self.asked: dict[str, float] = {}
        """Calls that asked the user, and when (``time.monotonic``)."""
        self.waited: dict[str, int] = {}
        """Calls the user let run, and how long the answer took (ms)."""

    def _common(self) -> dict[str, str]:
        session = self.session_id()
        return {"session.id": session} if session else {}

    def _event(self, name: str, **attributes: Any) -> None:
        given = {key: value for key, value in attributes.items() if value is not None}
        self.logger.emit(event_name=name, body=name, attributes={**self._common(), "event.name": name, **given},
                         timestamp=time.time_ns())

    def _child(self, name: str, **attributes: Any) -> Any:
        parent = trace.set_span_in_context(self.interaction) if self.interaction is not None else None
        return self.tracer.start_span(name, context=parent, attributes={**self._common(), **attributes})

    def prompted(self, text: str) -> None:
        """A prompt about to be sent: the session counts from its first one (it has an id then)."""
        if not self.counted:
            self.sessions.add(1, self._common())
            self.counted = True
        if self.interaction is not None:
            self.interaction.end()
        self.interaction = self.tracer.start_span("neocode.interaction", attributes={
            **self._common(), "prompt_length": len(text)})
        self._event("neocode.user_prompt", prompt_length=len(text), prompt=text if self.log_prompts else None)

    def observe(self, event: LoopEvent) -> None:
        if isinstance(event, TurnStarted):
            self.request = self._child("neocode.llm_request", model=self.model())
            self.request_started = time.monotonic()
        elif isinstance(event, ApprovalRequested):
            self.asked[event.call_id] = time.monotonic()
        elif isinstance(event, TurnFinished):
            self._turn(event)
        elif isinstance(event, ToolStarted):
            self.tools[event.call_id] = self._child("neocode.tool", tool_name=event.name)
            if (asked := self.asked.get(event.call_id)) is not None:
                self.waited[event.call_id] = round((time.monotonic() - asked) * 1000)
        elif isinstance(event, ToolFinished):
            self._tool(event)
        elif isinstance(event, RunFinished) and self.interaction is not None:
            self.interaction.set_attribute("stop_reason", event.reason)
            self.interaction.end()
            self.interaction = None

    def _turn(self, event: TurnFinished) -> None:
        model = event.model or self.model()
        usage = event.usage or Usage.unknown()
        cost = request_cost(usage, model) if event.usage is not None else None
        attributes = {**self._common(), "model": model}
        duration_ms = round((time.monotonic() - self.request_started) * 1000)
        self.request_time.record(duration_ms, attributes)
        for kind, value in (("input", usage.input_tokens), ("output", usage.output_tokens),
                            ("cacheRead", usage.cached_input_tokens),
                            ("cacheCreation", usage.cache_creation_input_tokens)):
            if value:
                self.tokens.add(value, {**attributes, "type": kind})
        if cost is not None:
            self.cost.add(float(cost), attributes)
        if event.error is not None:
            self._event("neocode.api_error", model=model, error=event.error.message, kind=event.error.kind)
        else:
            self._event("neocode.api_request", model=model, input_tokens=usage.input_tokens,
                        output_tokens=usage.output_tokens, cache_read_tokens=usage.cached_input_tokens,
                        cache_creation_tokens=usage.cache_creation_input_tokens,
                        cost_usd=float(cost) if cost is not None else None, duration_ms=duration_ms)
        if self.request is not None:
            self.request.set_attributes({"model": model, "input_tokens": usage.input_tokens or 0,
                                         "output_tokens": usage.output_tokens or 0})
            self.request.end()
            self.request = None

    def _tool(self, event: ToolFinished) -> None:
        success = not event.is_error
        self.tool_calls.add(1, {**self._common(), "tool_name": event.name, "success": success})
        duration = round(event.duration * 1000) if event.duration is not None else None
        self._event("neocode.tool_result", tool_name=event.name, success=success, status=event.status,
                    duration_ms=duration)
        if duration is not None:
            self.tool_time.record(duration, {**self._common(), "tool_name": event.name})
        self._decision(event)
        span = self.tools.pop(event.call_id, None)
        if span is not None:
            span.set_attributes({"success": success, "status": event.status})
            span.end()

    def _decision(self, event: ToolFinished) -> None:
        """Whether the call went ahead, and who said so: ``user`` when it asked (and how long
        the answer took), ``config`` when the mode or a rule decided (Claude Code's words)."""
        asked = self.asked.pop(event.call_id, None)
        waited = self.waited.pop(event.call_id, None)
        if event.status not in ("ok", "error", "denied"):
            return  # interrupted or skipped: nobody decided
        decision = "reject" if event.status == "denied" else "accept"
        source = "config" if asked is None else "user"
        self.decisions.add(1, {**self._common(), "tool_name": event.name, "decision": decision, "source": source})
        if asked is not None and waited is None:  # refused: the answer was the end of it
            waited = round((time.monotonic() - asked) * 1000)
        self._event("neocode.tool_decision", tool_name=event.name, decision=decision, source=source,
                    wait_ms=waited)

    def shutdown(self) -> None:
        for span in [self.request, self.interaction, *self.tools.values()]:
            if span is not None:
                span.end()
        self.traces.shutdown()
        self.logs.shutdown()
        self.meters.shutdown()
