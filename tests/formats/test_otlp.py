"""Reading OTLP JSON (formats/otlp.py): the Collector's file-exporter lines, a pretty-printed request,
hex and base64 ids, attribute values, and every bad number or id refused with the file and line."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from ragauge.errors import InputError
from ragauge.formats.otlp import read_spans, value
from tests.formats.otlp_files import TRACE, request, span, write


def test_spans_of_every_line_in_file_order_with_their_line(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", request([span("1", "root"), span("2", "child", parent="1", start=5, end=9)]),
                 request([span("3", "late", trace="ab" * 16)]))
    spans = list(read_spans(path))
    assert [(s.name, s.loc) for s in spans] == [("root", f"{path}:1"), ("child", f"{path}:1"), ("late", f"{path}:2")]
    root, child, late = spans
    assert root.parent_id is None and child.parent_id == "0000000000000001" and late.trace_id == "ab" * 16
    assert child.start_ns == 1_700_000_000_000_000_005 and child.duration_ms == pytest.approx(4e-6)


def test_a_pretty_printed_request_is_one_request(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(request([span("1", "root", input__value="q")]), indent=2), encoding="utf-8")
    (s,) = read_spans(path)
    assert s.attributes["input.value"] == "q" and s.loc == str(path)


def test_base64_ids_as_protobuf_json_writes_them_read_as_hex(tmp_path: Path) -> None:
    raw = span("1", "root")
    raw["traceId"] = base64.b64encode(bytes.fromhex(TRACE)).decode()
    raw["spanId"] = base64.b64encode(bytes.fromhex("00000000000000ff")).decode()
    (s,) = read_spans(write(tmp_path / "t.jsonl", request([raw])))
    assert s.trace_id == TRACE and s.span_id == "00000000000000ff"


def test_only_the_kept_attributes_are_read(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", request([span("1", "s", keep="a", vector={"doubleValue": "NaN"})]))
    (s,) = read_spans(path, keep=lambda key: key == "keep")
    assert s.attributes == {"keep": "a"}  # the NaN nobody reads refuses nothing
    with pytest.raises(InputError, match="finite") as caught:
        list(read_spans(path))
    assert caught.value.where == f"{path}:1"


def test_attribute_values() -> None:
    assert value({"intValue": "12"}, "x", "f:1") == 12 and value({"intValue": 3}, "x", "f:1") == 3
    assert value({"doubleValue": "0.5"}, "x", "f:1") == 0.5 and value({"boolValue": True}, "x", "f:1") is True
    assert value({"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": "1"}]}}, "x", "f:1") == ["a", 1]
    assert value({"kvlistValue": {"values": [{"key": "k", "value": {"stringValue": "v"}}]}}, "x", "f:1") == {"k": "v"}
    assert value({}, "x", "f:1") is None


@pytest.mark.parametrize("bad", [{"doubleValue": "Infinity"}, {"doubleValue": "-Infinity"}, {"doubleValue": "NaN"},
                                 {"doubleValue": "high"}, {"intValue": "1.5"}, {"stringValue": 3}, {"what": 1},
                                 "text"])
def test_a_bad_value_is_refused(bad: object) -> None:
    with pytest.raises(InputError) as caught:
        value(bad, "span 's': attribute 'k'", "f:3")
    assert caught.value.where == "f:3"


@pytest.mark.parametrize(("field", "bad", "said"), [
    ("traceId", "xyz", "traceId 'xyz' is not 16 bytes"),
    ("spanId", TRACE, "spanId"),
    ("startTimeUnixNano", "-5", "whole number of nanoseconds"),
    ("endTimeUnixNano", "1.5e9", "whole number of nanoseconds"),
    ("endTimeUnixNano", "1", "ends"),
    ("droppedAttributesCount", -1, "droppedAttributesCount"),
    ("attributes", {"k": "v"}, "'attributes' must be a list"),
])
def test_a_bad_span_is_refused_with_its_line(tmp_path: Path, field: str, bad: object, said: str) -> None:
    raw = span("1", "s")
    raw[field] = bad
    path = write(tmp_path / "t.jsonl", request([span("2", "fine")]), request([raw]))
    with pytest.raises(InputError, match=said) as caught:
        list(read_spans(path))
    assert caught.value.where == f"{path}:2" and caught.value.hint


@pytest.mark.parametrize(("field", "bad", "said"), [("startTimeUnixNano", None, "has no startTimeUnixNano"),
                                                    ("endTimeUnixNano", None, "has no endTimeUnixNano"),
                                                    ("startTimeUnixNano", "0", "startTimeUnixNano 0, which OTLP")])
def test_a_span_without_its_times_is_refused(tmp_path: Path, field: str, bad: object, said: str) -> None:
    # OTLP requires both times (proto3 JSON leaves out a 0): a call with no start has no place in its trace
    raw = span("1", "retrieve")
    if bad is None:
        del raw[field]
    else:
        raw[field] = bad
    path = write(tmp_path / "t.jsonl", request([span("2", "fine")]), request([raw]))
    with pytest.raises(InputError, match=said) as caught:
        list(read_spans(path))
    assert caught.value.where == f"{path}:2" and f"span 'retrieve' of trace {TRACE}" in caught.value.message
    assert "both times" in str(caught.value.hint)


def test_a_line_that_is_not_a_request_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"resourceSpans": []}\n{"spans": 3, "resourceSpans": 5}\n', encoding="utf-8")
    with pytest.raises(InputError, match="resourceSpans") as caught:
        list(read_spans(path))
    assert caught.value.where == f"{path}:2"
    path.write_text('{"resourceSpans": []}\n{"resourceSpans": [\n', encoding="utf-8")
    with pytest.raises(InputError, match="JSON") as caught:
        list(read_spans(path))
    assert caught.value.where == f"{path}:2"
