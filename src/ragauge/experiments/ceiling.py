"""The ceiling of a reranker: the best its candidates allow, whatever the order.

For each question the run's hits are put in the order a perfect reranker would choose: by the golden
grade of their document, highest first (unlabelled documents count 0), the run's order kept among
equals; the ceiling is every metric of that order. A reranker at its ceiling orders perfectly; the
gap to it is what a better reranker could still gain, and the ceiling's own distance from 1 is what
only a better first stage (or a deeper one) can fix.
"""

from __future__ import annotations

from dataclasses import replace

from ragauge.data.golden import GoldenSet
from ragauge.data.run import Run


def oracle_order(golden: GoldenSet, run: Run) -> Run:
    """``run`` with each question's hits ordered by their document's grade (see the module docstring)."""
    grades = {q.id: q.relevant for q in golden}
    results = []
    for result in run.results():
        graded = grades.get(result.id, {})
        order = sorted(range(len(result.hits)),
                       key=lambda i: (-graded.get(result.hits[i].doc_id or "", 0.0), i))
        results.append(replace(result, hits=tuple(result.hits[i] for i in order)))
    return Run.from_results(results, meta={**run.meta, "ordered": "by golden grade (a reranker's ceiling)"})
