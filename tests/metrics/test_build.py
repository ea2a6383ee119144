"""Building rankings: duplicate detection per query, exact despite fingerprint collisions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragauge.metrics.build as build
from ragauge.metrics.build import shared_in_segments

SEGMENTS = st.lists(st.lists(st.integers(0, 6), max_size=40), max_size=12)


def _reference(segments: list[list[int]]) -> dict[tuple[int, int], list[int]]:
    """(segment, value) -> positions, for values that occur more than once in their segment."""
    out: dict[tuple[int, int], list[int]] = {}
    at = 0
    for s, seg in enumerate(segments):
        for i, v in enumerate(seg):
            out.setdefault((s, v), []).append(at + i)
        at += len(seg)
    return {k: p for k, p in out.items() if len(p) > 1}


@settings(deadline=None)
@given(segments=SEGMENTS, big=st.booleans())
def test_shared_in_segments_matches_reference(segments, big):
    values = np.array([v for seg in segments for v in seg], dtype=np.uint64)
    if big:  # the largest fingerprint is also the padding value inside the function
        values[values == 6] = np.iinfo(np.uint64).max
    pos, label = shared_in_segments(values, np.array([len(s) for s in segments], dtype=np.int64))
    groups: dict[int, list[int]] = {}
    for p, lab in zip(pos.tolist(), label.tolist()):
        groups.setdefault(lab, []).append(p)
    assert sorted(groups.values()) == sorted(_reference(segments).values())
    assert all(g == sorted(g) for g in groups.values())  # rank order within a group


@settings(deadline=None)
@given(hits=st.lists(st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=8), min_size=1, max_size=5))
def test_folding_is_exact_when_every_fingerprint_collides(hits):
    import pyarrow as pa

    from ragauge.metrics.build import Judgements, build_rankings

    qid = pa.array([f"q{i}" for i, hs in enumerate(hits) for _ in hs], pa.string())
    doc = pa.array([d for hs in hits for d in hs], pa.string())
    judgements = Judgements(pa.array(["q0"], pa.string()), pa.array(["c"], pa.string()), np.array([1.0]))
    ids = [f"q{i}" for i in range(len(hits))]
    real = build_rankings(ids, qid, doc, judgements, keep_top=10)
    with pytest.MonkeyPatch.context() as mp:  # every string the same fingerprint: only exact checks remain
        mp.setattr(build, "hash64", lambda values: np.zeros(len(values), dtype=np.uint64))
        collided = build_rankings(ids, qid, doc, judgements, keep_top=10)
    (r, info), (c, cinfo) = real, collided
    assert info.folded.tolist() == cinfo.folded.tolist() == [len(hs) - len(set(hs)) for hs in hits]
    assert r.pos.tolist() == c.pos.tolist() and r.lengths.tolist() == c.lengths.tolist()
    assert info.top_rows.tolist() == cinfo.top_rows.tolist()
    firsts = [i for i, hs in enumerate(hits) for j, d in enumerate(hs) if d not in hs[:j]]
    assert len(info.top_rows) == len(firsts)
