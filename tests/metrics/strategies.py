"""Hypothesis strategies shared by the metric cross-checks.

Everything here produces plain Python structures (dicts and lists); the tests turn them into
ragauge objects and into the inputs of the independent implementations.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

# Document ids that make tie-breaking interesting: prefixes of each other ("a" < "aa"), upper
# before lower case in byte order ("B" < "a"), digits sorting as text ("d10" < "d2"), and a
# non-ASCII letter (UTF-8 byte order equals code point order, as strcmp sees it).
# Plus long ids that differ in one middle byte only (a fingerprint of the ends would call them
# equal; tests/metrics/test_build.py forces every fingerprint to collide to test the exact check).
COLLIDING = st.sampled_from("abBé9").map(lambda c: "P" * 8 + c + "Q" * 21)
DOCNO = st.one_of(st.text(alphabet="abBd0129é", min_size=1, max_size=3), COLLIDING)
QID = st.text(alphabet="q0127", min_size=1, max_size=2)

# Tiny score sets force many ties, which trec_eval breaks by docno (descending strcmp).
# -0.0 == 0.0 for trec_eval (a C double comparison), so it must tie with 0.0, not sort apart.
TIE_SCORES = st.sampled_from([0.0, 0.5, 1.0, -0.0])
# pytrec_eval embeds trec_eval 9.x, which stores scores as C float (32 bit); trec_eval 10 and
# ragauge use double. Two doubles that round to the same float tie in pytrec_eval but not in
# trec_eval 10 (e.g. 0.0 and 3.8e-184), so random scores are drawn exactly representable in
# 32 bits, where both agree.
WIDE_SCORES = st.one_of(
    TIE_SCORES,
    st.integers(-3, 3).map(float),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=32),
)

# Grade sets per query: all-irrelevant queries (no document graded >= 1), binary, graded, and
# negative grades (trec_eval treats them as not relevant, with no nDCG gain).
TREC_GRADES = st.sampled_from([(0,), (-1, 0), (0, 1), (1,), (0, 1, 2, 3), (-1, 0, 1, 2, 3)])

# Row layouts of a TREC run. "trec" is already in trec_eval's ranking order with each query's
# rows together; "grouped" keeps each query's rows together in random order; "shuffled"
# interleaves all rows; "blocks" splits each query's rows into blocks, each in ranking order,
# laid out in any order among other queries' blocks.
CONTIGUOUS_LAYOUTS = ("trec", "grouped")
INTERLEAVED_LAYOUTS = ("shuffled", "blocks")


def trec_sort_key(item: tuple[str, float]) -> tuple[float, bytes]:
    """Key for ``sorted(..., reverse=True)``: score descending, then docno descending (strcmp)."""
    docno, score = item
    return (score, docno.encode("utf-8"))


def trec_ranked(docs: dict[str, float]) -> list[tuple[str, float]]:
    return sorted(docs.items(), key=trec_sort_key, reverse=True)


@dataclass
class TrecCase:
    qrels: dict[str, dict[str, int]]        # qid -> docno -> grade (every judged query has >= 1 row)
    run: dict[str, dict[str, float]]        # qid -> docno -> score (no empty entries)
    rows: list[tuple[str, str, float]]      # the run file's rows, in file order
    layout: str
    qrels_rows: list[tuple[str, str, int]] | None = None  # the qrels file's rows (default: dict order)

    def judgements(self) -> list[tuple[str, str, int]]:
        if self.qrels_rows is not None:
            return self.qrels_rows
        return [(q, d, g) for q, docs in self.qrels.items() for d, g in docs.items()]


@st.composite
def subsets(draw, items, min_size=0):
    items = list(items)
    mask = draw(st.lists(st.booleans(), min_size=len(items), max_size=len(items)))
    chosen = [x for x, keep in zip(items, mask) if keep]
    if len(chosen) < min_size:
        chosen = items[:min_size]
    return chosen


@st.composite
def trec_cases(draw, layouts=CONTIGUOUS_LAYOUTS + INTERLEAVED_LAYOUTS, max_docs=10):
    pool = draw(st.lists(DOCNO, min_size=1, max_size=max_docs, unique=True))
    qids = draw(st.lists(QID, min_size=1, max_size=5, unique=True))
    judged = draw(subsets(qids, min_size=1))
    qrels: dict[str, dict[str, int]] = {}
    for q in judged:
        docs = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True))
        grades = draw(TREC_GRADES)
        qrels[q] = {d: draw(st.sampled_from(grades)) for d in docs}
    scores = draw(st.sampled_from([TIE_SCORES, TIE_SCORES, WIDE_SCORES]))
    run: dict[str, dict[str, float]] = {}
    for q in draw(subsets(qids, min_size=1)):  # may include unjudged queries and miss judged ones
        docs = draw(st.lists(st.sampled_from(pool), max_size=len(pool), unique=True))
        if docs:  # a query with no rows is simply absent from a TREC run
            run[q] = {d: draw(scores) for d in docs}
    layout = draw(st.sampled_from(layouts))
    rows = _layout_rows(draw, run, layout)
    judgements = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    if draw(st.booleans()):  # qrels files need not be grouped by query either
        judgements = list(draw(st.permutations(judgements)))
    return TrecCase(qrels, run, rows, layout, judgements)


def _layout_rows(draw, run: dict[str, dict[str, float]], layout: str) -> list[tuple[str, str, float]]:
    order = draw(st.permutations(list(run)))
    if layout == "trec":
        return [(q, d, s) for q in order for d, s in trec_ranked(run[q])]
    if layout == "grouped":
        return [(q, d, s) for q in order for d, s in draw(st.permutations(list(run[q].items())))]
    if layout == "shuffled":
        return list(draw(st.permutations([(q, d, s) for q in run for d, s in run[q].items()])))
    # "blocks": cut each query's ranked rows into pieces, each piece in ranking order, shuffle
    # each query's pieces, and deal them out round-robin over the queries (so pieces of one
    # query are separated by other queries' rows whenever there are several queries)
    pieces: dict[str, list[list[tuple[str, str, float]]]] = {}
    for q in order:
        ranked = [(q, d, s) for d, s in trec_ranked(run[q])]
        cuts = sorted(draw(subsets(range(1, len(ranked)))))
        bounds = [0, *cuts, len(ranked)]
        pieces[q] = list(draw(st.permutations([ranked[a:b] for a, b in zip(bounds, bounds[1:])])))
    rows: list[tuple[str, str, float]] = []
    while any(pieces.values()):
        for q in order:
            if pieces[q]:
                rows += pieces[q].pop(0)
    return rows


# ---------------------------------------------------------------------------------------------
# Golden sets and runs for evaluate_run


@dataclass
class EvalCase:
    relevant: dict[str, dict[str, float]]   # question id -> doc -> grade (may be empty: no answer)
    hits: dict[str, list[tuple[str, float | None]]]  # run query id -> hits in retriever order
    fetch: int | None
    ks: tuple[int, ...]
    integer_grades: bool = True             # False: fractional grades (pytrec_eval needs ints)


GRADES = {
    "binary": st.just(1),
    "graded": st.sampled_from([-1, 0, 1, 2, 3]),
    # golden sets may grade with fractions: 0.5 is not relevant (< 1) but has nDCG gain 0.5
    "fractional": st.sampled_from([0, 0.5, 1, 1.5, 2.5]),
}


@st.composite
def eval_cases(draw, modes=("binary", "graded", "fractional")):
    pool = draw(st.lists(DOCNO, min_size=1, max_size=12, unique=True))
    n = draw(st.integers(1, 6))
    ids = [f"q{i}" for i in range(n)]
    mode = draw(st.sampled_from(modes))
    grades = GRADES[mode]
    relevant = {}
    for q in ids:
        docs = draw(st.lists(st.sampled_from(pool), max_size=min(len(pool), 5), unique=True))
        relevant[q] = {d: draw(grades) for d in docs}
    hits: dict[str, list[tuple[str, float | None]]] = {}
    extra = draw(st.lists(st.sampled_from(["x1", "x2", "q9"]), max_size=2, unique=True))
    for q in draw(subsets(ids)) + extra:
        # duplicates allowed (chunks of one document); scores are ignored (hit order is the ranking)
        docs = draw(st.lists(st.sampled_from(pool), max_size=15))
        hits[q] = [(d, draw(st.one_of(st.none(), TIE_SCORES))) for d in docs]
    fetch = draw(st.one_of(st.none(), st.integers(1, 12)))
    ks = tuple(sorted(set(draw(st.lists(st.integers(1, 12), min_size=1, max_size=2)))))
    return EvalCase(relevant, hits, fetch, ks, mode != "fractional")
