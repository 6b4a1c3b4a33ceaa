"""A local OTLP/HTTP receiver on 127.0.0.1: it takes what an exporter posts to
``/v1/metrics``, ``/v1/logs`` and ``/v1/traces``, decoded with OpenTelemetry's own protobuf
messages, and keeps the raw bytes too (to look for what must never be sent)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

KINDS = {"/v1/metrics": ExportMetricsServiceRequest, "/v1/logs": ExportLogsServiceRequest,
         "/v1/traces": ExportTraceServiceRequest}


@dataclass
class Received:
    url: str
    raw: bytearray = field(default_factory=bytearray)
    metrics: list[Any] = field(default_factory=list)
    logs: list[Any] = field(default_factory=list)
    spans: list[Any] = field(default_factory=list)

    def points(self, name: str) -> list[tuple[dict[str, Any], float]]:
        """Each data point of the metric ``name``: its attributes and value (the last
        export of a cumulative sum holds the totals)."""
        found = []
        for request in self.metrics[-1:]:
            for resource in request.resource_metrics:
                for scope in resource.scope_metrics:
                    for metric in scope.metrics:
                        if metric.name == name:
                            for point in metric.sum.data_points:
                                value = point.as_double if point.HasField("as_double") else point.as_int
                                found.append((_attributes(point.attributes), value))
        return found

    def histogram(self, name: str) -> list[tuple[dict[str, Any], int, float]]:
        """Each data point of the histogram ``name`` in the last export: its attributes,
        how many values it holds and their sum."""
        return [(_attributes(point.attributes), point.count, point.sum)
                for request in self.metrics[-1:] for resource in request.resource_metrics
                for scope in resource.scope_metrics for metric in scope.metrics if metric.name == name
                for point in metric.histogram.data_points]

    def events(self, name: str) -> list[dict[str, Any]]:
        return [_attributes(record.attributes) for request in self.logs for resource in request.resource_logs
                for scope in resource.scope_logs for record in scope.log_records
                if record.event_name == name]

    def all_spans(self) -> list[Any]:
        return [span for request in self.spans for resource in request.resource_spans
                for scope in resource.scope_spans for span in scope.spans]


def _attributes(pairs: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        value = pair.value
        out[pair.key] = getattr(value, value.WhichOneof("value")) if value.WhichOneof("value") else None
    return out


@contextmanager
def otlp_receiver() -> Iterator[Received]:
    lock = threading.Lock()
    received: Received

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            kind = KINDS.get(self.path)
            if kind is not None:
                message = kind.FromString(body)
                with lock:
                    received.raw.extend(body)
                    {"/v1/metrics": received.metrics, "/v1/logs": received.logs,
                     "/v1/traces": received.spans}[self.path].append(message)
            self.send_response(200 if kind is not None else 404)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    received = Received(f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield received
    finally:
        server.shutdown()
        server.server_close()
