"""Which documents a run ranks where, counted as the metrics count them: chunk hits folded into their
document (first occurrence kept, in retriever order), ranks 1-based over the folded list."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragauge.data.run import Run
from ragauge.evaluation.docids import resolve_doc_ids


@dataclass(frozen=True)
class TopDocuments:
    """For the questions asked about: ``top`` their first ``depth`` documents in rank order, ``ranks``
    the 1-based rank of each watched document the run returned at any depth (unreturned ones are
    absent), and ``answered`` the questions the run holds an answer for, empty or not (neither
    missing from it nor failed)."""

    top: Mapping[str, tuple[str, ...]]
    ranks: Mapping[str, Mapping[str, int]]
    answered: frozenset[str]


def top_documents(run: Run, query_ids: Sequence[str], depth: int, *,
                  watch: Mapping[str, Iterable[str]] | None = None, doc_id_sep: str | None = None,
                  doc_id_pattern: str | None = None, fetch: int | None = None) -> TopDocuments:
    """The first ``depth`` folded documents of each of ``query_ids`` in ``run``, and where the run
    ranks the documents of ``watch`` (``{question: doc ids}``) at any depth. Chunk ids map to
    documents by ``doc_id_sep``/``doc_id_pattern`` as in evaluation (a hit's own doc_id wins);
    ``fetch`` keeps each question's first raw hits only, as an evaluation's ``fetch`` does.

    Vectorized over the run (no per-hit Python loop): the fold and the ranks are those of
    :func:`ragauge.metrics.build.build_rankings`, the function every metric is computed from."""
    from ragauge.core.arrow import strings, take
    from ragauge.metrics.build import Judgements, build_rankings

    docs = resolve_doc_ids(run, doc_id_sep, doc_id_pattern)
    pairs = list(dict.fromkeys((q, d) for q in query_ids for d in (watch or {}).get(q, ())))
    # Each watched pair is "judged" with its own index + 1 as the grade, so every ranked judged entry
    # build_rankings returns names its pair; grades are not used as grades here.
    judgements = Judgements(strings([q for q, _ in pairs]), strings([d for _, d in pairs]),
                            np.arange(1, len(pairs) + 1, dtype=np.float64))
    rankings, info = build_rankings(list(query_ids), run.ranked, docs, judgements, rel_level=1.0, depth=fetch,
                                    duplicates="first", source=run.source, keep_top=depth)
    shown = take(docs, info.top_rows).to_pylist()
    offsets = info.top_offsets.tolist()
    top = {q: tuple(shown[offsets[i]:offsets[i + 1]]) for i, q in enumerate(query_ids)}
    ranks: dict[str, dict[str, int]] = {}
    for pos, code in zip(rankings.pos.tolist(), rankings.grades.tolist()):
        q, d = pairs[int(code) - 1]
        ranks.setdefault(q, {})[d] = int(pos) + 1
    held = set(run.queries)
    answered = frozenset(q for i, q in enumerate(query_ids) if (info.present[i] or q in held) and q not in run.errors)
    return TopDocuments(top, ranks, answered)
