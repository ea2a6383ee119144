"""Label health for ``ragauge golden validate``: suspicious labels, over-broad questions, unjudged pools.

Checks, with their code and severity (see :mod:`ragauge.curation.validate` for the others):

- ``many-relevant`` (warning): a question with more than ``max_relevant`` relevant documents (grade
  >= 1; default :data:`DEFAULT_MAX_RELEVANT`, 0 turns the check off). Such a question is usually too
  broad to test retrieval, or labelled too generously, and recall@k cannot exceed k / relevant on it.
- With a pool (a pool file from ``golden pool``, or runs pooled on the spot):
  - ``unreturned-label`` (warning): a relevant document that no pooled system returned at any depth
    it fetched, for a question some system answered. Either the label is wrong, or every system
    misses the document: both worth a look. A relevant document labelled after the pool was made
    and absent from it was in no system's top ``depth``, but its deeper ranks are unknown: it is
    counted (``labelled_after_pooling``), not flagged.
  - ``unjudged-pool`` (warning): questions whose pool holds documents the golden set does not judge.
    Coverage is the share of a question's pooled documents (each system's top ``depth``) that the
    golden set judges, any grade, 0 included; the metrics count every unjudged document as not
    relevant, so coverage below 1 means some scores may be too low.
  - ``not-pooled`` (info): golden questions the pool does not hold (added after pooling).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ragauge.curation import DEFAULT_DEPTH
from ragauge.curation.findings import Finding
from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.data.pool import Pool, PoolSystem
from ragauge.data.relevance import is_relevant
from ragauge.errors import InputError, flag

DEFAULT_MAX_RELEVANT = 20
"""Above this many relevant documents a question is flagged: a retrieval golden set scored at k <= 10
cannot reward finding more than a few of them, and broad questions hide what they test."""
SHOWN = 10


def many_relevant_findings(queries: Sequence[GoldenQuery], max_relevant: int, k: int | None = None) -> list[Finding]:
    """A ``many-relevant`` warning for each question with more than ``max_relevant`` relevant
    documents (``max_relevant`` 0: no check); with a cutoff ``k``, the message gives recall@k's ceiling."""
    if max_relevant <= 0:
        return []
    out = []
    for q in queries:
        n = sum(is_relevant(g) for g in q.relevant.values())
        if n > max_relevant:
            ceiling = f"; recall@{k} can be at most {k / n:.2f} on it" if k else ""
            out.append(Finding("warning", "many-relevant",
                               f"question {q.id!r} has {n} relevant documents, more than {max_relevant}{ceiling}",
                               q.line, (q.id,),
                               "split the question into narrower ones, or keep only the documents that answer it "
                               f"({flag('max_relevant', str(n))} accepts it)"))
    return out


def pool_health(queries: Sequence[GoldenQuery], pool: Pool, source: str) -> tuple[list[Finding], dict[str, Any]]:
    """The pool findings for ``queries`` (the golden set as it is now) and the ``pool`` section of the
    report: per question the pooled documents, how many are judged, the coverage, the unreturned
    relevant documents; overall coverage (judged pooled documents over all pooled documents)."""
    findings: list[Finding] = []
    rows = []
    not_pooled = []
    unjudged = []
    total_pooled = total_judged = 0
    names = len(pool.systems)
    for q in queries:
        pooled_q = pool.by_id.get(q.id)
        if pooled_q is None:
            not_pooled.append(q.id)
            continue
        known = {d.doc_id: d for d in (*pooled_q.candidates, *pooled_q.judged)}
        pooled = [d.doc_id for d in known.values() if d.within(pool.depth)]
        judged = sum(doc in q.relevant for doc in pooled)
        total_pooled += len(pooled)
        total_judged += judged
        relevant = [doc for doc, grade in q.relevant.items() if is_relevant(grade)]
        unreturned = [doc for doc in relevant if doc in known and not known[doc].ranks] if pooled_q.systems else []
        after = [doc for doc in relevant if doc not in known]
        coverage = judged / len(pooled) if pooled else None
        rows.append({"id": q.id, "line": q.line, "pooled": len(pooled), "judged": judged, "coverage": coverage,
                     "systems": len(pooled_q.systems), "unreturned": unreturned, "labelled_after_pooling": after})
        if judged < len(pooled):
            unjudged.append(q.id)
        if unreturned:
            many = len(unreturned) > 1
            findings.append(Finding(
                "warning", "unreturned-label",
                f"question {q.id!r}: relevant {'documents' if many else 'document'} "
                f"{', '.join(map(repr, unreturned))} {'are' if many else 'is'} returned by none of the "
                f"{len(pooled_q.systems)} pooled system{'s' if len(pooled_q.systems) != 1 else ''} at any depth "
                "(a suspicious label)", q.line, (q.id,),
                "check that the document answers the question; if it does, every system misses it"))
    coverage = total_judged / total_pooled if total_pooled else None
    if unjudged:
        more = f" (+{len(unjudged) - SHOWN} more)" if len(unjudged) > SHOWN else ""
        findings.append(Finding(
            "warning", "unjudged-pool",
            f"{len(unjudged)} of {len(rows)} pooled questions have documents in the top {pool.depth} of a pooled "
            f"system that the golden set does not judge (pool coverage {coverage:.0%}): the metrics count them as "
            f"not relevant: {', '.join(unjudged[:SHOWN])}{more}", None, tuple(unjudged),
            "judge the pool's candidates (grade 0 for a document that does not answer), then validate again"))
    if not_pooled:
        more = f" (+{len(not_pooled) - SHOWN} more)" if len(not_pooled) > SHOWN else ""
        findings.append(Finding("info", "not-pooled",
                                f"{len(not_pooled)} question(s) are not in the pool (added after pooling?): "
                                f"{', '.join(not_pooled[:SHOWN])}{more}", None, tuple(not_pooled),
                                "pool them: ragauge golden pool"))
    section = {"source": source, "depth": pool.depth, "systems": [s.name for s in pool.systems],
               "questions": rows, "pooled": total_pooled, "judged": total_judged, "coverage": coverage,
               "not_pooled": not_pooled, "system_count": names}
    return findings, section


def load_pool(golden: GoldenSet, pool: Any, depth: int | None = None, *, doc_id_sep: str | None = None,
              doc_id_pattern: str | None = None) -> tuple[Pool, str]:
    """The pool to check ``golden`` against, and a name for it: ``pool`` is a Pool, a pool file, or
    one or more runs (files, Runs or ``{qid: [doc, ...]}``) pooled here at ``depth`` (default 10; a
    pool file keeps the depth it was made at, and a different ``depth`` is refused). One pool file,
    or runs: not both."""
    from ragauge.formats.pool import is_pool_file, read_pool

    items = list(pool) if isinstance(pool, (list, tuple)) else [pool]
    if not items:
        raise InputError("no pool given", hint=f"{flag('pool', 'pool.jsonl')}, or {flag('pool', 'RUN')} (repeatable)")
    pools = [p for p in items if isinstance(p, Pool) or (isinstance(p, (str, Path)) and is_pool_file(p))]
    if pools and len(items) > 1:
        raise InputError("give one pool file, or run files to pool: not several pools nor a mix",
                         hint=f"{flag('pool', 'pool.jsonl')}, or {flag('pool', 'runs/a.jsonl')} "
                              f"{flag('pool', 'runs/b.jsonl')}")
    if pools:
        found, name = (pools[0], pools[0].source or "pool") if isinstance(pools[0], Pool) else \
            (read_pool(pools[0]), str(pools[0]))
        if doc_id_sep or doc_id_pattern:
            raise InputError(f"{flag('doc_id_sep')}/{flag('doc_id_pattern')} apply to run files; the pool file "
                             "records its own rule",
                             hint=f"this pool's rule: {found.doc_id}")
        if depth is not None and depth != found.depth:
            raise InputError(f"the pool {name!r} was made at depth {found.depth}, not {depth}",
                             hint=f"{flag('pool_depth')} applies to run files; make the pool again to change its "
                                  "depth")
        return found, name
    from ragauge.curation.pool import build_pool, name_systems
    from ragauge.formats.runs import as_run

    systems = [(PoolSystem(name, "run"), as_run(run)) for name, run in name_systems(items, "run")]
    names = [s.name for s, _ in systems]
    if len(set(names)) != len(names):
        raise InputError(f"run {next(n for n in names if names.count(n) > 1)!r} is given twice")
    built, _ = build_pool(golden, systems, DEFAULT_DEPTH if depth is None else depth, doc_id_sep=doc_id_sep,
                          doc_id_pattern=doc_id_pattern)
    return built, ", ".join(names)


def render_pool_lines(section: Mapping[str, Any]) -> list[str]:
    """The pool section for a terminal: overall coverage, then the questions with unjudged pooled
    documents or unreturned labels (lowest coverage first, at most 20). User text is escaped."""
    from ragauge.core.escape import terminal as t
    from ragauge.core.table import text_table

    rows = list(section["questions"])
    cov = section["coverage"]
    out = [f"pool: {t(section['source'])} ({len(section['systems'])} system(s), depth {section['depth']}): "
           f"{section['judged']} of {section['pooled']} pooled documents judged"
           + (f" (coverage {cov:.0%})" if cov is not None else "")]
    after = sum(len(r["labelled_after_pooling"]) for r in rows)
    if after:
        out.append(f"  {after} relevant document(s) labelled after pooling: in no system's top {section['depth']}, "
                   "deeper ranks unknown")
    shown = sorted((r for r in rows if (r["coverage"] is not None and r["coverage"] < 1) or r["unreturned"]),
                   key=lambda r: (r["coverage"] if r["coverage"] is not None else 2.0, r["id"]))
    if shown:
        table = [[t(r["id"]), str(r["pooled"]), str(r["judged"]),
                  "-" if r["coverage"] is None else f"{r['coverage']:.0%}", str(len(r["unreturned"]))]
                 for r in shown[:20]]
        out += text_table(["question", "pooled", "judged", "coverage", "unreturned"], table)
        if len(shown) > 20:
            out.append(f"  (+{len(shown) - 20} more in --format json)")
    return out
