"""OpenTelemetry traces as OTLP JSON, as the Collector's ``file`` exporter writes them: one
``ExportTraceServiceRequest`` object a line (``resourceSpans[].scopeSpans[].spans[]``), or a file
holding one such object (pretty-printed). Read with the standard library, no protobuf.

Per the OTLP/JSON encoding, ``traceId``, ``spanId`` and ``parentSpanId`` are hex strings; the
base64 that protobuf's own JSON mapping writes is read too (every id comes out as lowercase hex).
Times (``startTimeUnixNano``, ``endTimeUnixNano``) and ``intValue`` are decimal strings or numbers.
Both times of a span are required, as the OTLP span message says (its fields are "semantically
required"; proto3 JSON leaves a 0 out, so an absent time and a time of 0 are the same unset time):
a span without one is refused, since a trace's calls are ordered by when they started.
Attribute values are converted to Python: ``stringValue``, ``boolValue``, ``intValue``,
``doubleValue`` (finite, else refused), ``arrayValue`` (a list), ``kvlistValue`` (a dict),
``bytesValue`` (its base64 text). Only the attributes a caller keeps are converted, so a vector
nobody reads costs nothing and a bad number nobody reads refuses nothing.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragauge.core.files import line_blocks
from ragauge.core.jsonl import loads as json_loads
from ragauge.core.jsonl import read_json, read_jsonl
from ragauge.errors import InputError, where

WHAT = "OTLP trace"
HINT = ("give OTLP JSON as the OpenTelemetry Collector's file exporter writes it: one "
        '{"resourceSpans": [...]} object a line')
_HEX = re.compile(r"[0-9a-fA-F]*")
_INTEGER = re.compile(r"-?[0-9]+")


@dataclass(frozen=True)
class Span:
    """One span: its ids as lowercase hex (``parent_id`` None for a root), its name, its times in
    nanoseconds since the epoch (both set, ``end_ns >= start_ns``), the attributes kept, how many
    attributes the SDK dropped (``droppedAttributesCount``: over its limit), and ``loc``, where it
    was read (``file:line``)."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int
    end_ns: int
    attributes: Mapping[str, Any] = field(default_factory=dict)
    dropped: int = 0
    loc: str = ""

    @property
    def duration_ms(self) -> float:
        """``end - start`` in milliseconds."""
        return (self.end_ns - self.start_ns) / 1e6

    def describe(self) -> str:
        """How a message names the span: its name and its trace."""
        return f"span {self.name!r} of trace {self.trace_id}"


def read_spans(path: str | Path, *, keep: Callable[[str], bool] | None = None) -> Iterator[Span]:
    """Every span of the OTLP JSON file ``path``, in file order, with the attributes whose key
    ``keep`` accepts (all by default). InputError naming ``file:line`` for a line that is not an
    OTLP request, an id that is neither hex nor base64, a time that is missing (or 0, unset), not
    a whole number of nanoseconds or ends before it starts, and a kept attribute whose number is
    not finite."""
    for loc, request in _requests(Path(path)):
        if not isinstance(request, Mapping) or not isinstance(request.get("resourceSpans", []), list):
            raise InputError("not an OTLP trace request: no 'resourceSpans' list", where=loc, hint=HINT)
        for resource in request.get("resourceSpans", []):
            for scope in _list(resource, "scopeSpans", loc):
                for raw in _list(scope, "spans", loc):
                    yield _span(raw, loc, keep)


def _requests(path: Path) -> Iterator[tuple[str, Any]]:
    """``(loc, object)`` for each request: each line of a JSON Lines file, or the one object of a
    file whose first line is not a whole JSON object (a pretty-printed request; ``loc`` the file)."""
    if _first_line_is_whole(path):
        for number, obj in read_jsonl(path, what=WHAT):
            yield where(path, number), obj
    else:
        yield str(path), read_json(path, what=WHAT, hint=HINT)


def _first_line_is_whole(path: Path) -> bool:
    for block, _ in line_blocks(path, WHAT):
        for line in block.split(b"\n"):
            if line.strip():
                try:
                    return isinstance(json_loads(line, fast=True), dict)
                except ValueError:
                    return False
    return True  # an empty file: read_jsonl reads no request


def _list(obj: Any, key: str, loc: str) -> list[Any]:
    if not isinstance(obj, Mapping):
        raise InputError(f"expected an object holding {key!r}, got {type(obj).__name__}", where=loc, hint=HINT)
    value = obj.get(key, [])
    if not isinstance(value, list):
        raise InputError(f"{key!r} must be a list, got {type(value).__name__}", where=loc, hint=HINT)
    return value


def _span(raw: Any, loc: str, keep: Callable[[str], bool] | None) -> Span:
    if not isinstance(raw, Mapping):
        raise InputError(f"a span must be an object, got {type(raw).__name__}", where=loc, hint=HINT)
    name = raw.get("name", "")
    if not isinstance(name, str):
        raise InputError(f"a span's 'name' must be a string, got {name!r}", where=loc, hint=HINT)
    trace_id = _id(raw.get("traceId"), 16, "traceId", loc, name)
    span_id = _id(raw.get("spanId"), 8, "spanId", loc, name)
    parent = raw.get("parentSpanId")
    parent_id = _id(parent, 8, "parentSpanId", loc, name) if parent else None
    start, end = (_nanos(raw.get(key), key, loc, name, trace_id)
                  for key in ("startTimeUnixNano", "endTimeUnixNano"))
    if end < start:
        raise InputError(f"span {name!r} ends ({end}) before it starts ({start})", where=loc,
                         hint="check the clock of the traced application; times are nanoseconds since 1970")
    dropped = raw.get("droppedAttributesCount", 0)
    if isinstance(dropped, str) and _INTEGER.fullmatch(dropped):
        dropped = int(dropped)
    if isinstance(dropped, bool) or not isinstance(dropped, int) or dropped < 0:
        raise InputError(f"span {name!r}: 'droppedAttributesCount' must be a whole number, got {dropped!r}",
                         where=loc, hint=HINT)
    attributes: dict[str, Any] = {}
    for item in _list(raw, "attributes", loc):
        key = item.get("key") if isinstance(item, Mapping) else None
        if not isinstance(key, str):
            raise InputError(f"span {name!r}: an attribute without a string 'key'", where=loc, hint=HINT)
        if keep is None or keep(key):
            attributes[key] = value(item.get("value"), f"span {name!r}: attribute {key!r}", loc)
    return Span(trace_id, span_id, parent_id, name, start, end, attributes, dropped, loc)


def _id(text: Any, size: int, key: str, loc: str, name: str) -> str:
    """A trace or span id of ``size`` bytes as lowercase hex, from hex (OTLP/JSON) or base64."""
    if isinstance(text, str):
        if len(text) == 2 * size and _HEX.fullmatch(text):
            return text.lower()
        try:
            decoded = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            decoded = b""
        if len(decoded) == size:
            return decoded.hex()
    raise InputError(f"span {name!r}: {key} {text!r} is not {size} bytes in hex (or base64)", where=loc,
                     hint=f"OTLP/JSON writes a {key} as {2 * size} hex digits")


def _nanos(text: Any, key: str, loc: str, name: str, trace_id: str) -> int:
    """A span's time ``key``: a whole number of nanoseconds since 1970, set (absent or 0 is unset)."""
    if isinstance(text, str) and _INTEGER.fullmatch(text):
        text = int(text)
    if text is None or (type(text) is int and text == 0):
        said = f"has no {key}" if text is None else f"has {key} 0, which OTLP reads as unset"
        raise InputError(f"span {name!r} of trace {trace_id} {said}: a span's start and end times are both required, "
                         "and a trace's calls are ordered by when they started", where=loc,
                         hint="give the spans as the OpenTelemetry SDK exports them once ended: both times, as "
                              "decimal strings of nanoseconds since 1970")
    if isinstance(text, bool) or not isinstance(text, int) or text < 0:
        raise InputError(f"span {name!r}: {key} must be a whole number of nanoseconds, got {text!r}", where=loc,
                         hint="OTLP/JSON writes times as decimal strings of nanoseconds since 1970")
    return text


def value(raw: Any, what: str, loc: str) -> Any:
    """An OTLP ``AnyValue`` as a Python value (see the module docstring); None for an empty one.
    InputError naming ``what`` and ``loc`` for a value of no known kind or a number that is not
    finite."""
    if not isinstance(raw, Mapping) or len(raw) > 1:
        raise InputError(f"{what}: expected an OTLP value such as {{\"stringValue\": ...}}, got {raw!r}"[:300],
                         where=loc, hint=HINT)
    if not raw:
        return None
    kind, inner = next(iter(raw.items()))
    if kind in ("stringValue", "bytesValue") and isinstance(inner, str):
        return inner
    if kind == "boolValue" and isinstance(inner, bool):
        return inner
    if kind == "intValue":
        if isinstance(inner, str) and _INTEGER.fullmatch(inner):
            return int(inner)
        if isinstance(inner, int) and not isinstance(inner, bool):
            return inner
    if kind == "doubleValue":
        return _double(inner, what, loc)
    if kind == "arrayValue" and isinstance(inner, Mapping):
        return [value(v, what, loc) for v in _list(inner, "values", loc)]
    if kind == "kvlistValue" and isinstance(inner, Mapping):
        out = {}
        for item in _list(inner, "values", loc):
            if not isinstance(item, Mapping) or not isinstance(item.get("key"), str):
                raise InputError(f"{what}: a key-value list entry without a string 'key'", where=loc, hint=HINT)
            out[item["key"]] = value(item.get("value"), what, loc)
        return out
    raise InputError(f"{what}: {kind} {inner!r} is not a valid OTLP value"[:300], where=loc, hint=HINT)


def _double(inner: Any, what: str, loc: str) -> float:
    number = inner
    if isinstance(inner, str):  # proto3 JSON may quote a double, and spells NaN and infinities as strings
        try:
            number = float(inner)
        except ValueError:
            number = inner
    if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number):
        raise InputError(f"{what} must be a finite number, got {inner!r}", where=loc,
                         hint="NaN and infinities are not numbers ragauge can compute with: fix what the "
                              "traced application records")
    return float(number)
