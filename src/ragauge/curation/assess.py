"""``golden assess``: grade every (question, document) pair in the runs' top k with an automatic assessor.

**The pairs.** Each question of the golden set, with the first ``k`` distinct documents of each run
given (a hit without a document id counts by its chunk id), in the runs' order. A question of a run
that the golden set does not hold is left out (counted); a golden question no run answers has no pair.

**Human labels.** A golden line with ``"relevant": null`` is an *unlabelled* question (its query is
assessed, it has no human grade); every other question is labelled, and a pair of it has the human
grade of its document, 0 for a document it does not list (the rule ``eval`` scores by). Labelled
questions are assessed too: that is where the assessor's errors are measured (``golden agreement``)
and corrected (prediction-powered metrics), and where its calibration is fitted
(:mod:`ragauge.curation.calibration`).

**Scores are cached and resumed.** A pair's score is stored under the hash of (assessor, prompt,
question text, document text) (:meth:`Assessor.key`): in ``-o`` (a re-run reuses each line whose key
is the one it computes and scores only the rest) and in ``$RAGAUGE_CACHE/assess/`` (appended after
each question, and after each call of an ``llm:`` assessor, so an interrupted run loses little).
``-o`` is written whole, atomically, at the end, with one calibration for every line. An ``-o`` that
holds another assessor's labels, or a label for a pair no run given has in its top k, is refused
(exit 2, with its line).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragauge.core.jsonl import dumps
from ragauge.curation import DEFAULT_DEPTH
from ragauge.curation.assessors import ASSESS_KEY_ENV, Assessor, Cost, open_assessor
from ragauge.data.golden import GoldenSet
from ragauge.errors import InputError, flag, where
from ragauge.formats.autolabels import AutoLabel, Calibration, read_auto_labels, write_auto_labels

SHOWN = 5


@dataclass(frozen=True)
class Question:
    """A golden question as ``golden assess`` reads it: ``labels`` None when unlabelled."""

    id: str
    query: str
    tags: tuple[str, ...]
    labels: Mapping[str, float] | None
    line: int | None = None


def read_questions(path: str | Path) -> list[Question]:
    """The golden set's questions, a line with ``"relevant": null`` read as unlabelled; every other
    line is checked as ``load_golden`` checks it (file:line errors, duplicate ids)."""
    from ragauge.formats.golden import load_golden

    return questions_of(load_golden(path, unlabelled=True))


def questions_of(golden: GoldenSet) -> list[Question]:
    """The questions of ``golden`` as ``golden assess`` reads them (``labels`` None when unlabelled)."""
    return [Question(q.id, q.query, q.tags, dict(q.relevant) if q.labelled else None, q.line) for q in golden]


def top_pairs(questions: Sequence[Question], runs: Sequence[Any], k: int) -> tuple[dict[str, list[str]], int]:
    """``{question: [doc, ...]}``: each run's first ``k`` distinct documents, runs in order; and how
    many question ids of the runs the golden set does not hold."""
    from ragauge.core.arrow import take

    wanted = {q.id for q in questions}
    pairs: dict[str, dict[str, None]] = {q.id: {} for q in questions}
    stray: set[str] = set()
    for run in runs:
        stray |= set(run.queries) - wanted
        for qid in pairs:
            rows = run.rows_of(qid)
            docs = take(run.doc_id, rows).to_pylist()
            chunks = take(run.chunk_id, rows).to_pylist()
            seen: dict[str, None] = {}
            for doc, chunk in zip(docs, chunks):
                ident = doc if doc is not None else chunk
                if ident is not None:
                    seen.setdefault(ident)
                if len(seen) >= k:
                    break
            pairs[qid].update(seen)
    return {q: list(d) for q, d in pairs.items() if d}, len(stray)


@dataclass
class AssessReport:
    """What ``golden assess`` did: the pairs, where each score came from, the cost, the calibration."""

    output: str
    assessor: str
    k: int
    questions: int
    labelled: int
    pairs: int
    labelled_pairs: int
    scored: int
    reused: int
    cached: int
    failed: int
    cost: Cost
    calibration: Calibration
    grades: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"output": self.output, "assessor": self.assessor, "k": self.k, "questions": self.questions,
                "labelled_questions": self.labelled, "pairs": self.pairs, "labelled_pairs": self.labelled_pairs,
                "scored": self.scored, "reused": self.reused, "cached": self.cached, "failed": self.failed,
                "cost": self.cost.to_dict(), "calibration": self.calibration.to_dict(), "grades": self.grades,
                "notes": list(self.notes)}

    def lines(self) -> list[str]:
        c = self.calibration
        fit = (f"fitted on {c.fitted_on} human-labelled pairs, weighted kappa {c.kappa:.3f}" if c.fitted_on
               and c.kappa is not None else "the assessor's default (no human label to fit on)")
        cutoffs = ", ".join(f"{x:.4g}" for x in c.cutoffs)
        out = [f"{self.assessor}: {self.pairs} pairs of {self.questions} questions in the top {self.k} "
               f"({self.labelled} questions, {self.labelled_pairs} pairs human-labelled)",
               f"  scored now {self.scored}, reused from the output {self.reused}, from the cache {self.cached}"
               + (f", failed {self.failed} (re-run to retry)" if self.failed else ""),
               f"  cost: {self.cost.calls} model call(s), {self.cost.failed} failed, {self.cost.seconds:.1f} s, "
               f"{self.cost.sent:,} characters sent, {self.cost.received:,} received",
               f"  calibration: cutoffs [{cutoffs}] -> grades {[_g(g) for g in c.grades]}, {fit}",
               "  grades: " + ", ".join(f"{g}: {n}" for g, n in self.grades.items()),
               f"wrote {self.output}"]
        return out + [f"NOTE: {n}" for n in self.notes]


def _g(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


class _Cache:
    """Scores by key in ``$RAGAUGE_CACHE/assess/<assessor hash>.jsonl`` (a torn or foreign line is skipped)."""

    def __init__(self, assessor: Assessor, folder: Path | None) -> None:
        from ragauge.core.cache import cache_dir

        name = hashlib.sha256(assessor.id.encode("utf-8")).hexdigest()[:16] + ".jsonl"
        self.path = (folder if folder is not None else cache_dir() / "assess") / name
        self.scores: dict[str, float] = {}
        if self.path.is_file():
            from ragauge.core.jsonl import loads

            for line in self.path.read_bytes().splitlines():
                try:
                    obj = loads(line)
                    self.scores[str(obj["key"])] = float(obj["score"])
                except (ValueError, KeyError, TypeError):
                    continue

    def add(self, found: Mapping[str, float]) -> None:
        from ragauge.core.files import Appender

        if not found:
            return
        with Appender(self.path, what="assessor cache") as out:
            out.write("".join(dumps({"key": k, "score": s}) + "\n" for k, s in found.items()).encode("utf-8"))
        self.scores.update(found)


def _previous(output: Path, assessor: Assessor, pairs: Mapping[str, Sequence[str]]) -> dict[tuple[str, str], AutoLabel]:
    """The labels ``output`` already holds, checked against this assessor and these pairs."""
    if not output.is_file():
        return {}
    found = read_auto_labels(output)
    if found.assessor != assessor.id:
        raise InputError(f"the output holds labels of assessor {found.assessor!r}; this one is {assessor.id!r}",
                         where=str(output), hint=f"write to another file ({flag('output', 'PATH')}), or remove it "
                                                 "to assess again")
    wanted = {(q, d) for q, docs in pairs.items() for d in docs}
    for label in found.labels:
        if (label.question, label.doc_id) not in wanted:
            raise InputError(f"a label for document {label.doc_id!r} of question {label.question!r}, which no run "
                             "given has in its top k", where=where(output, label.line),
                             hint="give the runs (and k) the file was made from, or write to a new file")
    return {(a.question, a.doc_id): a for a in found.labels}


def assess_golden(golden: str | Path, runs: Sequence[str | Path], corpus: str | Path | Mapping[str, Any],
                  assessor: str | Assessor, output: str | Path, *, k: int = DEFAULT_DEPTH, model: str | None = None,
                  api_key_env: str = ASSESS_KEY_ENV, timeout: float | None = None, retries: int | None = None,
                  cache: str | Path | None = None) -> AssessReport:
    """Grade every (question, document) pair in the top ``k`` of ``runs`` with ``assessor`` (a spec,
    :func:`ragauge.curation.assessors.open_assessor`; ``model``, ``api_key_env``, ``timeout`` and
    ``retries`` are an ``llm:`` assessor's), calibrated on the golden set's human labels, into
    ``output`` (module docstring). ``corpus`` gives the documents' texts; ``cache`` the folder of the
    score cache (default ``$RAGAUGE_CACHE/assess``)."""
    from ragauge.core.files import check_not_an_input
    from ragauge.core.numbers import COUNT, check_number
    from ragauge.curation.calibration import fit_calibration
    from ragauge.formats.golden import load_golden
    from ragauge.formats.runs import read_run

    k = int(check_number(k, flag("k"), COUNT))
    if not runs:
        raise InputError("name the runs whose top k to assess", hint=flag("run", "RUN") + " (repeatable)")
    out = Path(output)
    check_not_an_input(out, [golden, *runs, *([corpus] if isinstance(corpus, (str, Path)) else [])],
                       "automatic labels")
    golden_set = load_golden(golden, unlabelled=True)
    questions = questions_of(golden_set)
    pairs, stray = top_pairs(questions, [read_run(r) for r in runs], k)
    notes = [f"{stray} question(s) of the runs are not in the golden set: left out"] if stray else []
    unanswered = sum(q.id not in pairs for q in questions)
    if unanswered:
        notes.append(f"{unanswered} golden question(s) are in no run's top {k}: no pair to assess")
    if not pairs:
        raise InputError("no run answers a question of the golden set", where=str(runs[0]),
                         hint="are the runs of this golden set (the same question ids)?")
    texts = _texts(corpus, pairs)
    judge = open_assessor(assessor, model=model, api_key_env=api_key_env, timeout=timeout,
                          retries=retries) if isinstance(assessor, str) else assessor
    try:
        previous = _previous(out, judge, pairs)
        store = _Cache(judge, Path(cache) if cache is not None else None)
        scores, reused, cached, stale = _score(questions, pairs, texts, judge, previous, store)
    finally:
        judge.close()
    if stale:
        notes.append(f"{stale} label(s) of the output were for another question or document text: assessed again")
    by_id = {q.id: q for q in questions}
    labelled = [(q, d) for q, docs in pairs.items() if by_id[q].labels is not None for d in docs
                if (q, d) in scores]
    human = [float((by_id[q].labels or {}).get(d, 0)) for q, d in labelled]
    calibration = fit_calibration([scores[p][0] for p in labelled], human, judge.default, who=judge.id)
    made = [AutoLabel(q, d, calibration.grade(scores[(q, d)][0]), scores[(q, d)][0], scores[(q, d)][1])
            for q, docs in pairs.items() for d in docs if (q, d) in scores]
    write_auto_labels(made, out, judge.id, calibration, golden_set.questions_hash)
    counts = {str(_g(g)): sum(a.grade == g for a in made) for g in calibration.grades}
    total = sum(len(d) for d in pairs.values())
    return AssessReport(str(out), judge.id, k, len(pairs), sum(by_id[q].labels is not None for q in pairs), total,
                        len(labelled), len(made) - reused - cached, reused, cached, total - len(made), judge.cost,
                        calibration, counts, notes)


def _texts(corpus: str | Path | Mapping[str, Any], pairs: Mapping[str, Sequence[str]]) -> dict[str, str]:
    from ragauge.curation.judge import load_documents
    from ragauge.formats.corpus import indexed_text

    wanted = {d for docs in pairs.values() for d in docs}
    found = load_documents(corpus, wanted)
    missing = sorted(wanted - set(found))
    if missing:
        shown = ", ".join(repr(m) for m in missing[:SHOWN]) + (" ..." if len(missing) > SHOWN else "")
        raise InputError(f"{len(missing)} document(s) of the runs' top k are not in the corpus: {shown}",
                         where=str(corpus) if isinstance(corpus, (str, Path)) else None,
                         hint="give the corpus the runs searched (the assessor reads each document's text)")
    return {d: indexed_text(*found[d]) for d in wanted}


def _score(questions: Sequence[Question], pairs: Mapping[str, Sequence[str]], texts: Mapping[str, str],
           judge: Assessor, previous: Mapping[tuple[str, str], AutoLabel],
           store: _Cache) -> tuple[dict[tuple[str, str], tuple[float, str]], int, int, int]:
    """``{pair: (score, key)}`` for every pair scored (from the output, the cache or the assessor),
    with the counts reused, cached and stale (an output line whose key no longer matches)."""
    scores: dict[tuple[str, str], tuple[float, str]] = {}
    reused = cached = stale = 0
    for q in questions:
        docs = pairs.get(q.id, [])
        todo: list[tuple[str, str]] = []
        for d in docs:
            key = judge.key(q.query, texts[d])
            before = previous.get((q.id, d))
            if before is not None and before.key == key:
                scores[(q.id, d)] = (before.score, key)
                reused += 1
            elif key in store.scores:
                scores[(q.id, d)] = (store.scores[key], key)
                cached += 1
                stale += before is not None
            else:
                todo.append((d, key))
                stale += before is not None
        step = 1 if judge.name == "llm" else max(len(todo), 1)  # a call per pair: each cached at once
        for start in range(0, len(todo), step):
            part = todo[start:start + step]
            got = judge.scores(q.query, [texts[d] for d, _ in part], [d for d, _ in part])
            found = {key: float(s) for (_, key), s in zip(part, got) if math.isfinite(s)}
            store.add(found)
            scores.update({(q.id, d): (found[key], key) for d, key in part if key in found})
    return scores, reused, cached, stale
