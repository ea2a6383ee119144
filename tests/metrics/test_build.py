"""Building rankings: duplicate detection per query, exact despite fingerprint collisions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragauge.metrics.build as build
import ragauge.metrics.duplicates as duplicates
from ragauge.core.arrow import fingerprint_slots
from ragauge.metrics.duplicates import shared_in_segments

SEGMENTS = st.lists(st.lists(st.integers(0, 6), max_size=40), max_size=12)


_SAME_SLOT = pow(0x9E3779B97F4A7C15, -1, 1 << 64)
"""v * _SAME_SLOT (mod 2**64) times the slots' multiplier is v: every small v falls on slot 0 of 32 bits."""


@settings(deadline=None)
@given(segments=SEGMENTS, big=st.booleans(), padded=st.booleans(), collide=st.booleans(),
       layout=st.randoms(use_true_random=False))
def test_shared_in_segments_matches_reference(segments, big, padded, collide, layout):
    """Segments laid out anywhere (shuffled, with gaps between them) or one after another; with
    ``collide``, unequal values that share their 32 bits (the first pass's key)."""
    placed = list(range(len(segments)))
    layout.shuffle(placed)
    values: list[int] = []
    starts = [0] * len(segments)
    for i in placed:
        values += [99] * layout.randint(0, 2)  # a gap: not in any segment
        starts[i] = len(values)
        values += segments[i]
    array = np.array([v * _SAME_SLOT % (1 << 64) if collide else v for v in values], dtype=np.uint64)
    if collide:
        assert len(set(fingerprint_slots(array, 32).tolist())) <= 1
    if big:  # the largest fingerprint is also the padding value inside the function
        array[array == (6 * _SAME_SLOT % (1 << 64) if collide else 6)] = np.iinfo(np.uint64).max
    with pytest.MonkeyPatch.context() as mp:
        if padded:  # group lengths by powers of two, padded, as for many distinct lengths
            mp.setattr(duplicates, "EXACT_WIDTHS", 0)
        pos, label = shared_in_segments(array, np.array([len(s) for s in segments]), np.array(starts))
    groups: dict[int, list[int]] = {}
    for p, lab in zip(pos.tolist(), label.tolist()):
        groups.setdefault(lab, []).append(p)
    want: list[list[int]] = []
    for i, seg in enumerate(segments):
        for v in set(seg):
            at = [starts[i] + j for j, w in enumerate(seg) if w == v]
            if len(at) > 1:
                want.append(at)
    assert sorted(groups.values()) == sorted(want)
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


def test_duplicate_detection_in_a_second_thread_gives_the_same_result(monkeypatch):
    """Large runs detect duplicates in a background thread; its result and errors come back."""
    import pyarrow as pa

    from ragauge.errors import InputError
    from ragauge.metrics.build import Judgements, build_rankings

    qid = pa.array(["q1", "q1", "q1", "q2", "q2"], pa.string())
    doc = pa.array(["a", "b", "a", "c", "d"], pa.string())
    judgements = Judgements(pa.array(["q1", "q2"], pa.string()), pa.array(["a", "d"], pa.string()),
                            np.array([1.0, 1.0]))
    serial = build_rankings(["q1", "q2"], qid, doc, judgements, keep_top=5)
    monkeypatch.setattr(build, "PARALLEL_ROWS", 0)
    threaded = build_rankings(["q1", "q2"], qid, doc, judgements, keep_top=5)
    assert serial[1].folded.tolist() == threaded[1].folded.tolist() == [1, 0]
    assert serial[0].pos.tolist() == threaded[0].pos.tolist() == [0, 1]
    with pytest.raises(InputError, match="more than once"):
        build_rankings(["q1", "q2"], qid, doc, judgements, duplicates="error")


@settings(deadline=None)
@given(hits=st.lists(st.lists(st.sampled_from([f"d{i}" for i in range(30)]), max_size=12), min_size=1, max_size=6),
       judged=st.lists(st.tuples(st.integers(0, 5), st.sampled_from([f"d{i}" for i in range(40)]), st.integers(0, 3)),
                       max_size=20),
       collide=st.booleans())
def test_the_judged_hits_found_through_the_table_are_those_looked_up_one_by_one(hits, judged, collide):
    """A run of many hits finds its judged ones through a table of fingerprints (candidates, then
    their text): the rankings are those of looking every hit's text up, even when fingerprints collide."""
    import pyarrow as pa

    from ragauge.metrics.build import Judgements, build_rankings

    qid = pa.array([f"q{i}" for i, hs in enumerate(hits) for _ in hs], pa.string())
    doc = pa.array([d for hs in hits for d in hs], pa.string())
    pairs = {(f"q{q}", d): g for q, d, g in judged}
    judgements = Judgements(pa.array([q for q, _ in pairs], pa.string()), pa.array([d for _, d in pairs], pa.string()),
                            np.array(list(pairs.values()), dtype=np.float64))
    ids = [f"q{i}" for i in range(len(hits) + 1)]

    def built(spread: int) -> tuple[object, ...]:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(build, "SPREAD", spread)  # 0: always the table; a large one: never
            if collide:
                mp.setattr(build, "hash64", lambda values: np.full(len(values), 7, dtype=np.uint64))
            r, info = build_rankings(ids, qid, doc, judgements, keep_top=3)
        return (r.offsets.tolist(), r.pos.tolist(), r.grades.tolist(), r.num_rel.tolist(), info.folded.tolist(),
                info.top_rows.tolist())

    assert built(0) == built(1 << 40)


@settings(deadline=None)
@given(queries=st.lists(st.lists(st.tuples(st.sampled_from("abcde"), st.sampled_from([3.0, 2.0, 1.0])), max_size=10),
                        min_size=1, max_size=4),
       depth=st.sampled_from([None, 2]))
def test_ties_written_out_of_order_fold_as_their_ranking_does(queries, depth):
    """A TREC run whose tied hits are written out of trec_eval's order (the ranking moves them,
    duplicates among them included) is built as the same hits written in rank order are: the same
    ranks, folds and documents shown."""
    import pyarrow as pa

    from ragauge.formats.trec import TrecRun, trec_ranking
    from ragauge.metrics.build import Judgements, build_rankings

    rows = [(f"q{i}", d, s) for i, hits in enumerate(queries) for d, s in sorted(hits, key=lambda h: -h[1])]
    judgements = Judgements(pa.array(["q0", "q0", "q1"], pa.string()), pa.array(["a", "c", "b"], pa.string()),
                            np.array([1.0, 2.0, 1.0]))
    ids = [f"q{i}" for i in range(len(queries))]

    def built(run_rows: list[tuple[str, str, float]]) -> tuple[object, ...]:
        qid, doc = pa.array([r[0] for r in run_rows], pa.string()), pa.array([r[1] for r in run_rows], pa.string())
        score = np.array([r[2] for r in run_rows], dtype=np.float64)
        grouping = trec_ranking(TrecRun(qid, doc, score, "run", "run"))
        r, info = build_rankings(ids, grouping, doc, judgements, depth=depth, keep_top=10)
        shown = [(run_rows[t][1], run_rows[t][2]) for t in info.top_rows.tolist()]
        return r.offsets.tolist(), r.pos.tolist(), r.grades.tolist(), info.folded.tolist(), shown

    ranked = sorted(rows, key=lambda r: (r[0], -r[2], [-ord(c) for c in r[1]]))  # trec_eval's order, stable
    assert built(rows) == built(ranked)
