"""Span labels in a golden set: the forms a ``relevant`` list may hold, every refusal, the round trip
and the content hash (unchanged for sets without spans, so saved baselines stay comparable)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragauge.core.hashing import content_hash
from ragauge.data.golden import GoldenQuery, GoldenSet, parse_golden_line
from ragauge.data.spans import Span
from ragauge.errors import InputError
from ragauge.formats.golden import load_golden, write_golden


def line(relevant: object) -> GoldenQuery:
    return parse_golden_line({"id": "q1", "query": "how", "relevant": relevant}, "golden.jsonl:1")


def test_every_form_of_a_label() -> None:
    q = line(["kb-0", {"doc": "kb-1", "start": 120, "end": 340}, {"doc": "kb-1", "quote": "rotate it", "grade": 2},
              {"doc": "kb-2", "grade": 3}, {"doc": "kb-3", "quote": "x y", "start": 0, "end": 3}])
    assert q.relevant == {"kb-0": 1, "kb-1": 2, "kb-2": 3, "kb-3": 1}
    assert q.spans == {"kb-1": (Span(120, 340), Span(quote="rotate it", grade=2)),
                       "kb-3": (Span(0, 3, "x y"),)}
    assert q.answerable


@pytest.mark.parametrize(("relevant", "message"), [
    ([{"doc": "a", "start": 5}], "start without end"),
    ([{"doc": "a", "end": 5}], "end without start"),
    ([{"doc": "a", "start": 5, "end": 5}], "not after its start"),
    ([{"doc": "a", "start": -1, "end": 5}], "span start"),
    ([{"doc": "a", "start": 1.5, "end": 5}], "span start"),
    ([{"doc": "a", "quote": "  "}], "non-empty text"),
    ([{"doc": "a", "quote": 3}], "non-empty text"),
    ([{"doc": "", "quote": "x"}], "non-empty document id"),
    ([{"quote": "x"}], "non-empty document id"),
    ([{"doc": "a", "text": "x"}], "unknown field"),
    ([{"doc": "a", "quote": "x", "grade": float("nan")}], "grade"),
    (["a", {"doc": "a", "quote": "x"}], "both whole and by a span"),
    ([{"doc": "a", "quote": "x"}, "a"], "listed twice"),
    (["a", "a"], "listed twice"),
    ([{"doc": "a"}, {"doc": "a", "grade": 2}], "listed twice"),
    ([7], "non-empty strings or span objects"),
])
def test_bad_labels_are_refused_with_the_line(relevant: object, message: str) -> None:
    with pytest.raises(InputError, match=message) as info:
        line(relevant)
    assert info.value.where == "golden.jsonl:1"


def test_round_trip_through_a_file(tmp_path: Path) -> None:
    rows = [{"id": "q1", "query": "a", "relevant": [{"doc": "kb-1", "quote": "rotate", "grade": 2}, "kb-2",
                                                     {"doc": "kb-3", "grade": 3}]},
            {"id": "q2", "query": "b", "relevant": [{"doc": "kb-1", "start": 3, "end": 9}], "tags": ["t"]},
            {"id": "q3", "query": "c", "relevant": {"kb-9": 2}}]
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    golden = load_golden(path)
    assert [q.to_dict() for q in golden] == rows
    assert golden.by_id["q1"].line == 1 and golden.by_id["q2"].spans == {"kb-1": (Span(3, 9),)}
    write_golden(golden, tmp_path / "again.jsonl")
    again = load_golden(tmp_path / "again.jsonl")
    assert again.content_hash == golden.content_hash
    assert [q.spans for q in again] == [q.spans for q in golden]


def test_hash_without_spans_is_the_one_baselines_saved() -> None:
    golden = GoldenSet.from_queries([line(["a", "b"]), parse_golden_line(
        {"id": "q2", "query": "x", "relevant": {"c": 2}, "tags": ["t"]}, "here")])
    before = content_hash({"golden": 1, "queries": sorted(
        [q.id, q.query, sorted(q.relevant.items()), sorted(q.tags)] for q in golden)})
    assert golden.content_hash == before


def test_spans_change_the_hash() -> None:
    a = GoldenSet.from_queries([line([{"doc": "a", "quote": "one"}])])
    b = GoldenSet.from_queries([line([{"doc": "a", "quote": "two"}])])
    whole = GoldenSet.from_queries([line(["a"])])
    assert len({a.content_hash, b.content_hash, whole.content_hash}) == 3
