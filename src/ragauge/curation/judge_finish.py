"""``golden judge --finish``: the judgements of a log merged into the golden set as graded labels.

Each graded (question, document) is settled by the adjudication rule of
:mod:`ragauge.curation.agreement` (one annotator's grade, the grade all gave, the adjudicator's,
or a strict majority; a tie is left out and listed). Then, through :func:`ragauge.curation.merge.merge_golden`,
the one code path of ``golden merge``:

- a question of the golden set gains its settled grades as ``relevant`` entries (grade 0 included:
  a judged non-relevant document, which the next pool leaves out); a document it labels already
  with another grade is refused (the set changed after pooling);
- a question the golden set lacks (a candidate from ``golden add`` that the pool was made from)
  becomes a new question when some document was graded >= 1: its line from the candidates file,
  with ``relevant`` filled in, is checked as ``golden merge`` checks a reviewed candidate (review
  fields stripped, ids unique); one with no relevant document found is left out and listed;
- any problem stops the merge before anything is written; the golden set is replaced atomically.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragauge.curation.agreement import JudgeStats, Resolution, judgement_stats, resolve_all
from ragauge.curation.merge import MergeReport
from ragauge.data.judgements import replay
from ragauge.data.pool import Pool
from ragauge.data.relevance import is_relevant
from ragauge.errors import InputError, flag, where

SHOWN = 10


@dataclass(frozen=True)
class JudgeMerge:
    """What ``--finish`` merged: the ``report`` of the merge into ``output``, the ``stats`` of the log
    (disagreements and how each was settled), the ``unresolved`` items left out, the new questions
    ``left_out`` for lack of a relevant document, and ``unjudged`` pool candidates nobody graded."""

    golden: str
    output: str
    report: MergeReport
    stats: JudgeStats
    unresolved: tuple[Resolution, ...]
    left_out: tuple[str, ...]
    unjudged: int

    def to_dict(self) -> dict[str, Any]:
        r = self.report
        return {"version": 1, "golden": self.golden, "output": self.output, "labels_added": r.labelled,
                "questions_labelled": r.questions_labelled, "questions_added": r.merged,
                "unresolved": [u.to_dict() for u in self.unresolved], "left_out": list(self.left_out),
                "unjudged": self.unjudged, "stats": self.stats.to_dict()}

    def lines(self) -> list[str]:
        """The summary for a terminal or the page; ids escaped for a terminal."""
        from ragauge.core.escape import terminal as t

        r = self.report
        settled = {how: sum(d.how == how for d in self.stats.disagreements) for how in ("majority", "adjudicator")}
        out = [f"merged {r.labelled} label(s) into {r.questions_labelled} question(s)"
               + (f" and {r.merged} new question(s)" if r.merged else "") + f"; wrote {t(self.output)}"]
        if self.stats.disagreements:
            out.append(f"{len(self.stats.disagreements)} disagreement(s): {settled['majority']} settled by majority, "
                       f"{settled['adjudicator']} by the adjudicator, {len(self.unresolved)} unresolved")
        if self.unresolved:
            shown = ", ".join(f"{t(u.question)}/{t(u.doc_id)}" for u in self.unresolved[:SHOWN])
            more = f" (+{len(self.unresolved) - SHOWN} more)" if len(self.unresolved) > SHOWN else ""
            out.append(f"NOTE: {len(self.unresolved)} item(s) with tied grades were NOT merged: {shown}{more}; "
                       "see 'ragauge golden judge-stats', then grade them as adjudicator (--adjudicator NAME)")
        if self.left_out:
            shown = ", ".join(t(q) for q in self.left_out[:SHOWN])
            out.append(f"NOTE: {len(self.left_out)} new question(s) left out, no candidate graded relevant: {shown}"
                       + (" ..." if len(self.left_out) > SHOWN else ""))
        if self.unjudged:
            out.append(f"{self.unjudged} pool candidate(s) still unjudged: they stay unlabelled (metrics count them "
                       "as not relevant)")
        out += [f"NOTE: {t(n)}" for n in self.stats.notes]
        return out


def _source_lines(path: str | None) -> dict[str, tuple[str, dict[str, Any]]]:
    """``{id: (file:line, line)}`` of the file the pool was made from, when it can be read."""
    from ragauge.core.jsonl import read_jsonl

    if path is None or not Path(path).is_file():
        return {}
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for number, obj in read_jsonl(path, what="golden set"):
        if isinstance(obj.get("id"), str):
            out.setdefault(obj["id"], (where(path, number), obj))
    return out


def _golden_queries(path: Path) -> dict[str, tuple[str, Any]]:
    """``{id: (file:line, query)}`` of the golden set to merge into; a candidates file (null
    ``relevant``) is refused."""
    from ragauge.core.jsonl import read_jsonl

    out: dict[str, tuple[str, Any]] = {}
    for number, obj in read_jsonl(path, what="golden set"):
        if "relevant" in obj and obj["relevant"] is None:
            raise InputError("this file holds candidates still to review ('relevant' is null), not a golden set",
                             where=where(path, number),
                             hint="the pool was made from a candidates file: name the golden set to merge into "
                                  "with " + flag("golden"))
        if isinstance(obj.get("id"), str):
            out.setdefault(obj["id"], (where(path, number), obj.get("query")))
    return out


def _same_questions(pool: Pool, golden: Mapping[str, tuple[str, Any]], labelled: Iterable[str]) -> None:
    """InputError when a labelled question of the pool asks something else than the golden set's
    question of that id (another question with the same id, or one edited after pooling)."""
    asked = {q.id: q.query for q in pool.questions}
    problems = [f"{golden[qid][0]}: question {qid!r} asks {golden[qid][1]!r} here but {asked[qid]!r} in the pool"
                for qid in labelled if qid in asked and golden[qid][1] != asked[qid]]
    if problems:
        raise InputError("the judgements are for other questions than the golden set's of the same id:\n  "
                         + "\n  ".join(problems), where=pool.source,
                         hint="give the candidates new ids, or pool the golden set again after editing a question")


def _relevant(grades: Mapping[str, float]) -> Any:
    return list(grades) if all(g == 1 for g in grades.values()) else dict(grades)


def merge_judgements(pool: Pool | str | Path, log: str | Path | None = None, *, golden: str | Path | None = None,
                     output: str | Path | None = None, adjudicator: str | None = None) -> JudgeMerge:
    """Merge the judgements ``log`` (default: beside the pool, ``POOL.judgements.jsonl``) holds for
    ``pool`` into ``golden`` (default: the golden set the pool was made from) and write the result
    to ``output`` (default: ``golden`` itself), atomically. See the module docstring for the rules."""
    from ragauge.core.files import atomic_write
    from ragauge.curation.merge import merge_golden
    from ragauge.formats.judgements import default_log_path, read_judgements
    from ragauge.formats.pool import read_pool

    pool = pool if isinstance(pool, Pool) else read_pool(pool)
    if log is None:
        if pool.source is None:
            raise InputError("name the judgements log (log=...)", hint="a pool read from a file has a default log")
        log = default_log_path(pool.source)
    source = pool.golden.get("path")
    target = Path(golden) if golden is not None else Path(source) if source else None
    if target is None:
        raise InputError("the pool does not record its golden set", hint="name it with " + flag("golden", "GOLDEN"))
    ids = _golden_queries(target)
    read = read_judgements(log)
    stats = judgement_stats(read.records, logs=[str(log)], adjudicator=adjudicator, notes=read.notes)
    resolutions = resolve_all(replay(read.records), adjudicator)
    settled: dict[str, dict[str, float]] = {}
    for r in resolutions:
        if r.grade is not None:
            settled.setdefault(r.question, {})[r.doc_id] = r.grade
    in_pool = {q.id: q for q in pool.questions}
    sources = _source_lines(source) if any(q not in ids for q in settled) else {}
    labels: dict[str, dict[str, float]] = {}
    candidates: list[tuple[str, dict[str, Any]]] = []
    left_out: list[str] = []
    for qid, grades in settled.items():
        if qid in ids:
            labels[qid] = grades
        elif qid in in_pool:
            if not any(is_relevant(g) for g in grades.values()):
                left_out.append(qid)
                continue
            q = in_pool[qid]
            made = {"id": q.id, "query": q.query, **({"tags": list(q.tags)} if q.tags else {})}
            loc, line = sources.get(qid, (where(pool.source or "pool", q.line), made))
            candidates.append((loc, {**line, "relevant": _relevant(grades)}))
        else:
            labels[qid] = grades  # merge_golden names the question the golden set lacks
    _same_questions(pool, ids, labels)
    text, report = merge_golden(target, candidates, labels)
    output = Path(output) if output is not None else target
    atomic_write(output, text, what="golden set")
    judged = {(r.question, r.doc_id) for r in resolutions if r.grade is not None}
    unjudged = sum(1 for q in pool.questions for c in q.candidates if (q.id, c.doc_id) not in judged)
    return JudgeMerge(str(target), str(output), report, stats, tuple(r for r in resolutions if r.grade is None),
                      tuple(left_out), unjudged)
