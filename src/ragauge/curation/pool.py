"""``ragauge golden pool``: pool several systems' top documents for judging (see :mod:`ragauge.data.pool`).

For each question of a golden set (or of a candidates file from ``golden add``, whose ``relevant``
is still null), the candidates are the union of the first ``depth`` documents of every system,
counted after chunk folding as the metrics count them, minus every document the question already
judges (any grade, 0 included). Systems are retrievers, called here through the executor of
``ragauge run`` (concurrency, timeouts, retries), and run files. A system that fails on a question
or lacks it is not counted as having answered it, and the report says so.

With ``for_verdict`` (two runs, BASE and NEW), the pool is made for the verdict of comparing them: both
are pooled, the header records the comparison (:class:`ragauge.data.pool.PoolVerdict`), and the result
says where the verdict stands and orders the candidates by how much their label could move it
(:mod:`ragauge.curation.verdict`); ``golden judge`` then serves them in that order.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.core.numbers import COUNT, PROBABILITY, check_number
from ragauge.curation import DEFAULT_DEPTH as DEFAULT_DEPTH
from ragauge.curation import VERDICT_METRIC
from ragauge.data.golden import GoldenQuery, GoldenSet, parse_golden_line
from ragauge.data.pool import Pool, PoolDocument, PooledQuestion, PoolSystem, PoolVerdict
from ragauge.data.run import Run
from ragauge.errors import InputError, flag, where
from ragauge.stats import DEFAULT_ALPHA

if TYPE_CHECKING:
    from ragauge.curation.verdict import VerdictStatus
    from ragauge.data.judgements import Item

REJECTED = "rejected"
SHOWN = 10  # question ids listed in a note

ProgressFactory = Callable[[str], Any]
"""Given a retriever's name, a ``ragauge.runner.executor.Progress`` for its calls (or None)."""


@dataclass(frozen=True)
class PoolResult:
    """A pool and what happened while making it: ``notes`` says, per system, which questions it
    lacked or failed on; ``skipped`` counts candidates marked ``"status": "rejected"``, left out. A
    pool made for a verdict has its ``verdict`` status and its candidates in ``order``, each
    ``((question, doc), priority)``, highest first (:mod:`ragauge.curation.verdict`)."""

    pool: Pool
    notes: tuple[str, ...] = ()
    skipped: int = 0
    verdict: VerdictStatus | None = None
    order: tuple[tuple[Item, float], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The summary: per question and overall, how many candidates came from how many systems."""
        return {
            "version": 1, "depth": self.pool.depth, "systems": [s.to_dict() for s in self.pool.systems],
            "questions": len(self.pool.questions), "candidates": self.pool.candidates,
            "by_systems": {str(n): c for n, c in self.pool.by_systems().items()},
            "judged_in_pool": sum(judged_in_pool(q, self.pool.depth) for q in self.pool.questions),
            "skipped_rejected": self.skipped, "notes": list(self.notes),
            "per_question": [{"id": q.id, "candidates": len(q.candidates),
                              "by_systems": {str(n): c for n, c in q.by_systems().items()},
                              "judged_in_pool": judged_in_pool(q, self.pool.depth), "systems": len(q.systems)}
                             for q in self.pool.questions],
            **({} if self.verdict is None else {"verdict": {
                **self.verdict.to_dict(),
                "order": [{"id": q, "doc_id": d, "priority": round(v, 9)} for (q, d), v in self.order]}}),
        }


def judged_in_pool(q: PooledQuestion, depth: int) -> int:
    return sum(j.within(depth) for j in q.judged)


# --- questions --------------------------------------------------------------------------------------

def pool_questions(golden: Any) -> tuple[GoldenSet, int]:
    """The questions to pool and how many rejected candidates were left out. ``golden`` is a
    GoldenSet, questions (GoldenQuery or dicts), or the path of a golden set or of a candidates file
    from ``golden add``: there ``"relevant": null`` reads as nothing judged yet and lines with
    ``"status": "rejected"`` are skipped. Every line is checked as a golden line (file:line errors)."""
    if isinstance(golden, GoldenSet):
        return golden, 0
    if not isinstance(golden, (str, Path)):
        from ragauge.formats.golden import as_golden

        return as_golden(golden), 0
    from ragauge.core.jsonl import read_jsonl

    queries: list[GoldenQuery] = []
    first: dict[str, int] = {}
    skipped = 0
    for number, obj in read_jsonl(golden, what="golden set"):
        loc = where(golden, number)
        if obj.get("status") == REJECTED:
            skipped += 1
            continue
        q = parse_golden_line({**obj, "relevant": []} if "relevant" in obj and obj["relevant"] is None else obj, loc)
        if q.id in first:
            raise InputError(f"duplicate question id {q.id!r} (first seen on line {first[q.id]})", where=loc,
                             hint="give every question a unique id")
        first[q.id] = number
        queries.append(replace(q, line=number))
    if not queries:
        raise InputError("no question to pool", where=str(golden),
                         hint="the file is empty or every candidate is rejected")
    return GoldenSet(tuple(queries), str(golden)), skipped


# --- systems ----------------------------------------------------------------------------------------

def _retriever_name(retriever: Any) -> str:
    if isinstance(retriever, str):
        from ragauge.redact import redact

        return redact(retriever)
    if inspect.isfunction(retriever) or inspect.ismethod(retriever):
        return f"python:{retriever.__module__}:{retriever.__qualname__}"
    return str(getattr(retriever, "name", None) or type(retriever).__name__)


def _run_name(run: Any, index: int) -> str:
    if isinstance(run, (str, Path)):
        return str(run)
    if isinstance(run, Run):
        return str(run.source or run.meta.get("retriever") or f"run {index}")
    return f"run {index}"


def name_systems(items: Any, kind: str) -> list[tuple[str, Any]]:
    """``(name, system)`` pairs: a mapping's keys are the names; otherwise a retriever is named by its
    spec (passwords hidden) or function, a run by its path (or source, or its position)."""
    if isinstance(items, Mapping):
        return [(str(k), v) for k, v in items.items()]
    if isinstance(items, (str, Path)):
        items = [items]
    return [(_run_name(v, i) if kind == "run" else _retriever_name(v), v) for i, v in enumerate(items, start=1)]


def _systems(golden: GoldenSet, retrievers: list[tuple[str, Any]], runs: list[tuple[str, Any]], *,
             fetch: int, concurrency: int | None, timeout: float | None, retries: int | None,
             doc_id_key: str | None,
             config: Mapping[str, Any] | None, progress: ProgressFactory | None) -> list[tuple[PoolSystem, Run]]:
    from ragauge.formats.runs import as_run
    from ragauge.runner.live import retrieve_all

    out: list[tuple[PoolSystem, Run]] = []
    for name, run in runs:
        out.append((PoolSystem(name, "run"), as_run(run)))
    for name, retriever in retrievers:
        done = retrieve_all(golden, retriever, None, fetch=fetch, concurrency=concurrency, timeout=timeout,
                            retries=retries, on_error="zero", doc_id_key=doc_id_key, config=config,
                            progress=progress(name) if progress is not None else None)
        out.append((PoolSystem(name, "retriever"), done.run))
    names = [s.name for s, _ in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"system {twice[0]!r} is given twice", hint="pool each retriever and run once")
    return out


def _same_file(a: Any, b: Any) -> bool:
    """Whether two runs given as paths name one file (``runs/a.jsonl`` and ``./runs/a.jsonl``, a link)."""
    import os

    if not isinstance(a, (str, Path)) or not isinstance(b, (str, Path)):
        return False
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):  # a missing file is refused when it is read, with its own message
        return False


# --- the pool ---------------------------------------------------------------------------------------

def build_pool(golden: GoldenSet, systems: Sequence[tuple[PoolSystem, Run]], depth: int = DEFAULT_DEPTH, *,
               doc_id_sep: str | None = None, doc_id_pattern: str | None = None) -> tuple[Pool, list[str]]:
    """The pool of ``systems`` (name and run each) over ``golden`` at ``depth``, and a note per system
    that lacks or failed on questions. Pure: no file, no network. InputError when a system answers
    none of the questions (a run of another golden set?)."""
    from ragauge._version import __version__
    from ragauge.evaluation.docids import doc_id_rule
    from ragauge.evaluation.topdocs import top_documents

    depth = int(check_number(depth, f"{flag('depth')} (documents pooled per system)", COUNT))
    if not systems:
        raise InputError("nothing to pool", hint=f"give at least one {flag('retrievers', 'SPEC', cli='--retriever')} "
                                                 f"or {flag('runs', 'RUN', cli='--run')}")
    ids = [q.id for q in golden]
    watch = {q.id: list(q.relevant) for q in golden}
    notes: list[str] = []
    tops = []
    for system, run in systems:
        top = top_documents(run, ids, depth, watch=watch, doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern)
        if not top.answered:
            raise InputError(f"{system.name} answers none of the {len(ids)} questions", where=run.source,
                             hint="is it a run of this golden set? (question ids must match)")
        failed = [q for q in ids if q in run.errors]
        missing = [q for q in ids if q not in top.answered and q not in run.errors]
        for what, qids in (("failed on", failed), ("lacks", missing)):
            if qids:
                more = f" (+{len(qids) - SHOWN} more)" if len(qids) > SHOWN else ""
                notes.append(f"{system.name} {what} {len(qids)} question(s), pooled without it: "
                             f"{', '.join(qids[:SHOWN])}{more}")
        tops.append((system.name, top))
    questions = []
    for q in golden:
        candidates: dict[str, dict[str, int]] = {}
        for name, top in tops:
            for rank, doc in enumerate(top.top[q.id], start=1):
                if doc not in q.relevant:
                    candidates.setdefault(doc, {})[name] = rank
        ordered = sorted((PoolDocument(doc, ranks) for doc, ranks in candidates.items()),
                         key=lambda c: (c.best_rank, -len(c.ranks), c.doc_id))
        judged = tuple(PoolDocument(doc, {name: top.ranks[q.id][doc] for name, top in tops
                                          if doc in top.ranks.get(q.id, {})}, grade)
                       for doc, grade in q.relevant.items())
        answered = tuple(name for name, top in tops if q.id in top.answered)
        questions.append(PooledQuestion(q.id, q.query, tuple(ordered), judged, answered, q.tags))
    meta = {"path": golden.source, "hash": golden.content_hash, "questions": len(golden)}
    pool = Pool(depth, tuple(s for s, _ in systems), tuple(questions), doc_id_rule(doc_id_sep, doc_id_pattern),
                meta, __version__)
    return pool, notes


def pool_golden(golden: Any, *, retrievers: Sequence[Any] | Mapping[str, Any] = (),
                runs: Sequence[Any] | Mapping[str, Any] = (), output: str | Path | None = None,
                depth: int = DEFAULT_DEPTH, fetch: int | None = None, concurrency: int | None = None,
                timeout: float | None = None, retries: int | None = None, doc_id_key: str | None = None,
                doc_id_sep: str | None = None, doc_id_pattern: str | None = None,
                config: Mapping[str, Any] | None = None,
                progress: ProgressFactory | None = None, for_verdict: Sequence[Any] | Mapping[str, Any] | None = None,
                verdict_metric: str = VERDICT_METRIC, alpha: float = DEFAULT_ALPHA) -> PoolResult:
    """Pool the top ``depth`` documents of ``retrievers`` (spec strings, functions ``fn(query, n)`` or
    adapters; a mapping gives them names) and ``runs`` (run files, Runs or ``{qid: [doc, ...]}``) for
    every question of ``golden`` (a golden set or candidates file, see :func:`pool_questions`), minus
    what each question already judges; write the pool file to ``output`` when given (atomically).

    Retrievers are asked for ``fetch`` hits (default: twice ``depth``, at least 20, so that chunk hits
    folded into documents still leave ``depth`` documents); a call that still fails after ``retries``
    leaves that retriever out of the question, and the result's notes say so. ``concurrency``,
    ``timeout`` and ``retries`` left None take ``ExecutorOptions``' and ``RetrieverOptions``' defaults.

    ``for_verdict``: two runs (BASE then NEW; a mapping names them) whose comparison on ``verdict_metric``
    (a cutoff no deeper than ``depth``) at level ``alpha`` the pool is made to decide; they are pooled
    too, and the result holds the verdict's status and the candidates' order (module docstring)."""
    golden_set, skipped = pool_questions(golden)
    depth = int(check_number(depth, f"{flag('depth')} (documents pooled per system)", COUNT))
    compared: list[tuple[str, Any]] = []
    if for_verdict is not None:
        from ragauge.curation.verdict import verdict_metric as check_metric

        compared = name_systems(for_verdict, "run")
        if len(compared) != 2 or compared[0][0] == compared[1][0]:
            raise InputError(f"{flag('for_verdict', cli='--for-verdict')} takes two different runs, BASE then NEW, "
                             f"got {len(compared)}" + (" with the same name" if len(compared) == 2 else ""),
                             hint=f"e.g. {flag('for_verdict', 'runs/a.jsonl runs/b.jsonl', cli='--for-verdict')}")
        (base_name, base), (new_name, new) = compared
        if _same_file(base, new):
            raise InputError(f"{flag('for_verdict', cli='--for-verdict')} takes two different runs, BASE then NEW: "
                             f"{base_name} and {new_name} are the same file", hint="name the run of each system")
        check_metric(verdict_metric, depth)
        alpha = check_number(alpha, flag("alpha"), PROBABILITY)
    elif verdict_metric != VERDICT_METRIC or alpha != DEFAULT_ALPHA:
        given = (flag("verdict_metric", str(verdict_metric), cli="--metric") if verdict_metric != VERDICT_METRIC
                 else flag("alpha", f"{alpha:g}" if isinstance(alpha, (int, float)) else str(alpha)))
        raise InputError(f"{given} applies only with {flag('for_verdict', cli='--for-verdict')}: it sets the "
                         "comparison a pool is made for",
                         hint=f"pool for a verdict with {flag('for_verdict', 'BASE NEW', cli='--for-verdict')}, "
                              "or leave it out")
    fetch = max(2 * depth, 20) if fetch is None else int(check_number(fetch, flag("fetch"), COUNT))
    if fetch < depth:
        raise InputError(f"{flag('fetch', str(fetch))} is below {flag('depth', str(depth))}: a retriever could not "
                         "fill the pool", hint=f"ask for at least {depth} hits ({flag('fetch', str(2 * depth))})")
    named_runs = name_systems(runs, "run")
    named_runs += [(name, run) for name, run in compared if name not in {n for n, _ in named_runs}]
    named_retrievers = name_systems(retrievers, "retriever")
    if not named_runs and not named_retrievers:
        raise InputError("nothing to pool", hint=f"give at least one {flag('retrievers', 'SPEC', cli='--retriever')} "
                                                 f"or {flag('runs', 'RUN', cli='--run')}")
    systems = _systems(golden_set, named_retrievers, named_runs, fetch=fetch, concurrency=concurrency,
                       timeout=timeout, retries=retries, doc_id_key=doc_id_key, config=config, progress=progress)
    pool, notes = build_pool(golden_set, systems, depth, doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern)
    status: VerdictStatus | None = None
    order: tuple[tuple[Item, float], ...] = ()
    if compared:
        from ragauge.curation.verdict import VerdictState

        pool = replace(pool, verdict=PoolVerdict(compared[0][0], compared[1][0], verdict_metric, alpha))
        state = VerdictState(pool)
        status, order = state.status(), tuple(state.order())
    if output is not None:
        from ragauge.formats.pool import write_pool

        write_pool(pool, output)
    return PoolResult(pool, tuple(notes), skipped, status, order)
