"""OTLP JSON for the trace tests: small hand-written spans, and real SDK spans encoded exactly as the
OpenTelemetry Collector's file exporter writes them.

The Collector's file exporter writes each request it receives as one line of ``ptrace.JSONMarshaler``
output: protobuf's JSON mapping (lowerCamelCase keys, 64-bit integers as decimal strings, empty fields
left out) except that, as the OTLP/JSON spec requires, ``traceId``/``spanId``/``parentSpanId`` are
lowercase hex (pdata's ``TraceID.MarshalJSON``) rather than protobuf's base64, and enums are integers.
``collector_lines`` does the same with the SDK's own OTLP encoder and ``MessageToDict``."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

TRACE = "5b8efff798038103d269b633813fc60c"


def value(v: Any) -> dict[str, Any]:
    """A Python value as an OTLP ``AnyValue``; a one-key dict ending in ``Value`` is taken as written."""
    if isinstance(v, Mapping) and len(v) == 1 and next(iter(v)).endswith("Value"):
        return dict(v)
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, (list, tuple)):
        return {"arrayValue": {"values": [value(x) for x in v]}}
    return {"stringValue": str(v)}


def span(span_id: str, name: str, *, trace: str = TRACE, parent: str | None = None, start: int = 0,
         end: int = 1_000_000, kind: str | None = None, dropped: int = 0, **attributes: Any) -> dict[str, Any]:
    """One span (ids as hex, padded: ``span("1", ...)`` is span ``0000000000000001``); attribute keys are
    given with ``__`` for ``.`` (``input__value="q"``)."""
    attrs = {k.replace("__", "."): v for k, v in attributes.items()}
    if kind is not None:
        attrs["openinference.span.kind"] = kind
    out: dict[str, Any] = {"traceId": trace, "spanId": span_id.rjust(16, "0"), "name": name, "kind": 1,
                           "startTimeUnixNano": str(1_700_000_000_000_000_000 + start),
                           "endTimeUnixNano": str(1_700_000_000_000_000_000 + end),
                           "attributes": [{"key": k, "value": value(v)} for k, v in attrs.items()]}
    if parent is not None:
        out["parentSpanId"] = parent.rjust(16, "0")
    if dropped:
        out["droppedAttributesCount"] = dropped
    return out


def documents(prefix: str, docs: Sequence[tuple[Any, ...]]) -> dict[str, Any]:
    """Attributes (as ``span`` takes them) for ``docs``: ``(id, score)`` or ``(id, score, metadata)``
    each, an id or score of None left out."""
    out: dict[str, Any] = {}
    for n, doc in enumerate(docs):
        key = f"{prefix}.{n}.document.".replace(".", "__")
        if doc[0] is not None:
            out[key + "id"] = doc[0]
        if len(doc) > 1 and doc[1] is not None:
            out[key + "score"] = doc[1]
        if len(doc) > 2:
            out[key + "metadata"] = json.dumps(doc[2])
    return out


def retriever(span_id: str, query: str, docs: Sequence[tuple[Any, ...]], **options: Any) -> dict[str, Any]:
    """A RETRIEVER span that sent ``query`` and got ``docs`` back."""
    return span(span_id, options.pop("name", "Retriever"), kind="RETRIEVER", input__value=query,
                **documents("retrieval.documents", docs), **options)


def reranker(span_id: str, query: str, docs_in: Sequence[tuple[Any, ...]], docs_out: Sequence[tuple[Any, ...]],
             **options: Any) -> dict[str, Any]:
    """A RERANKER span: ``docs_in`` in, ``docs_out`` out."""
    return span(span_id, options.pop("name", "Reranker"), kind="RERANKER", reranker__query=query,
                reranker__top_k=len(docs_out), reranker__model_name="test-reranker",
                **documents("reranker.input_documents", docs_in), **documents("reranker.output_documents", docs_out),
                **options)


def request(spans: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """One ExportTraceServiceRequest holding ``spans``."""
    return {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "app"}}]},
                               "scopeSpans": [{"scope": {"name": "tests"}, "spans": list(spans)}]}]}


def write(path: Path, *requests: Mapping[str, Any]) -> Path:
    """``requests`` as the file exporter writes them: one JSON object a line."""
    path.write_text("".join(json.dumps(r) + "\n" for r in requests), encoding="utf-8")
    return path


def collector_lines(spans: Sequence[Any], batch: int = 3) -> str:
    """Finished SDK spans (``ReadableSpan``) as the Collector's file exporter writes them, ``batch``
    spans per request (a BatchSpanProcessor's export), one request a line."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common._internal.trace_encoder import encode_spans

    lines = []
    for at in range(0, len(spans), batch):
        message = MessageToDict(encode_spans(spans[at:at + batch]), use_integers_for_enums=True)
        for resource in message["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for s in scope["spans"]:
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in s:
                            s[key] = base64.b64decode(s[key]).hex()
        lines.append(json.dumps(message, separators=(",", ":")) + "\n")
    return "".join(lines)
