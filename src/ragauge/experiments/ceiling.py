"""The ceiling of a reranker: the best its candidates allow, whatever the order.

For each question the run's hits are put in the order a perfect reranker would choose: by the golden
grade of their document, highest first (unlabelled documents count 0; with span labels, a chunk that
holds none of its document's spans counts 0 too), the run's order kept among equals; the ceiling is
every metric of that order. A reranker at its ceiling orders perfectly; the gap to it is what a
better reranker could still gain, and the ceiling's own distance from 1 is what only a better first
stage (or a deeper one) can fix.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ragauge.data.golden import GoldenSet
from ragauge.data.hits import Hit
from ragauge.data.run import Run
from ragauge.evaluation.spans import has_spans, holds_answer, resolve_spans
from ragauge.formats.corpus import CorpusTexts, read_corpus_texts


def oracle_order(golden: GoldenSet, run: Run, corpus: str | Path | CorpusTexts | None = None) -> Run:
    """``run`` with each question's hits ordered by their grade (see the module docstring); span
    labels resolve against ``corpus`` as evaluations resolve them."""
    places = {}
    if has_spans(golden):
        resolved = resolve_spans(golden, None if corpus is None else read_corpus_texts(corpus).plain)
        golden, places = resolved.golden, dict(resolved.places)
    grades = {q.id: q.relevant for q in golden}

    def grade(qid: str, rank: int, hit: Hit) -> float:
        doc = hit.doc_id or ""
        at = places.get((qid, doc))
        if at is not None and holds_answer(at, hit.start, hit.end, hit.chunk_id, qid, rank, run.source) is False:
            return 0.0
        return float(grades.get(qid, {}).get(doc, 0.0))

    results = []
    for result in run.results():
        order = sorted(range(len(result.hits)), key=lambda i: (-grade(result.id, i + 1, result.hits[i]), i))
        results.append(replace(result, hits=tuple(result.hits[i] for i in order)))
    return Run.from_results(results, meta={**run.meta, "ordered": "by golden grade (a reranker's ceiling)"})
