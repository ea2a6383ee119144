from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.evaluation.topdocs import top_documents
from ragauge.formats.runs import as_run


def naive(hits: list[str], depth: int) -> tuple[list[str], dict[str, int]]:
    """Fold chunk ids "doc#n" into documents, first occurrence kept; ranks 1-based."""
    docs: list[str] = []
    for chunk in hits:
        doc = chunk.split("#", 1)[0]
        if doc not in docs:
            docs.append(doc)
    return docs[:depth], {d: i + 1 for i, d in enumerate(docs)}


chunks = st.lists(st.builds(lambda d, c: f"d{d}#{c}", st.integers(0, 6), st.integers(0, 3)), max_size=25)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["q1", "q2", "q3"]), chunks, min_size=1), st.integers(1, 8),
       st.sets(st.sampled_from([f"d{i}" for i in range(8)])))
def test_matches_a_plain_fold_of_each_ranking(run: dict[str, list[str]], depth: int, watched: set[str]) -> None:
    hits = {q: [{"chunk_id": c} for c in cs] for q, cs in run.items()}
    ids = ["q1", "q2", "q3"]
    got = top_documents(as_run(hits), ids, depth, watch={q: sorted(watched) for q in ids}, doc_id_sep="#")
    for q in ids:
        top, ranks = naive(run.get(q, []), depth)
        assert list(got.top[q]) == top
        assert dict(got.ranks.get(q, {})) == {d: r for d, r in ranks.items() if d in watched}
    assert got.answered == frozenset(run)


def test_failed_questions_are_not_answered() -> None:
    from ragauge.data.hits import QueryResult
    from ragauge.data.run import Run

    run = Run.from_results([QueryResult("q1", ()), QueryResult("q2", (), error="boom")])
    assert top_documents(run, ["q1", "q2", "q3"], 5).answered == frozenset({"q1"})
