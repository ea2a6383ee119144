"""``import_traces``: OpenTelemetry traces that follow the OpenInference conventions (OTLP JSON, as
the Collector's file exporter writes them) as a run of a golden set, one multi-call answer per trace."""

from __future__ import annotations

from ragauge.formats.trace_import import import_traces as import_traces

__all__ = ["import_traces"]
