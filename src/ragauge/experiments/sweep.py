"""``ragauge sweep``: run a grid of built-in retriever configurations over one golden set and compare
them all at once, with honest statistics and their costs."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragauge._version import __version__
from ragauge.core.files import atomic_write
from ragauge.core.jsonl import dumps
from ragauge.core.notes import LOUD
from ragauge.errors import InputError, flag
from ragauge.experiments import SWEEP_OUTPUT
from ragauge.experiments.analysis import check_enough, holdout_check, select, shared_questions, table
from ragauge.experiments.grid import SweepPlan, plan_from_dict, read_plan
from ragauge.experiments.halving import sample_order, schedule
from ragauge.experiments.holdout import split_questions
from ragauge.experiments.indexes import Indexes
from ragauge.experiments.result import ConfigRow, Halving, SweepResult
from ragauge.experiments.rounds import run_all, run_rounds
from ragauge.formats.golden import as_golden
from ragauge.retrieve.corpus import corpus_fingerprint

OnProgress = Callable[[str, int, int, str], None]
"""``on_progress(stage, done, total, label)``: stage "index" counts indexes opened (``label`` is the
one being opened), stage "run" counts questions answered over all configurations (``label`` is the
configuration running)."""
RESULT_FILE = "sweep.json"


def as_plan(config: SweepPlan | str | Path | Mapping[str, Any]) -> SweepPlan:
    """A plan as given, read from a sweep TOML file, or built from its parsed content."""
    if isinstance(config, SweepPlan):
        return config
    if isinstance(config, (str, Path)):
        return read_plan(config)
    return plan_from_dict(config)


def sweep(golden: Any, corpus: str | Path, config: SweepPlan | str | Path | Mapping[str, Any],
          output: str | Path = SWEEP_OUTPUT, *, holdout: float | None = None, holdout_tag: str | None = None,
          budget: int | None = None, factor: int | None = None, on_progress: OnProgress | None = None) -> SweepResult:
    """Run every configuration of ``config`` (a sweep TOML file, its parsed content, or a
    :class:`SweepPlan`) over ``golden`` with the built-in retrievers on ``corpus``, and compare them.

    Each index (a BM25 index, a passage-embedding matrix) is built once, cached under
    ``output/cache`` keyed by the corpus content, the settings and the embedder (an entry that does
    not match is rebuilt), and shared by every configuration that uses it. Each configuration's run
    is written to ``output/runs/NAME.jsonl`` (a ``ragauge run`` file with its ``_meta``: ``ragauge
    compare`` takes any two), and the result to ``output/sweep.json``.

    The result holds a row per configuration (means, paired tests against the reference with Holm's
    correction over configurations x metrics, latency p50/p95, index build time and size, the Pareto
    frontier), the selection on the primary metric (a winner only when it is significantly ahead of
    every other configuration) and, with ``holdout`` (a fraction, split by a hash of the question id)
    or ``holdout_tag``, the chosen configuration measured on held-out questions. See
    ``ragauge.experiments.analysis`` for the tests.

    ``budget`` (or ``[sweep] budget``) runs successive halving (``ragauge.experiments.halving``): at
    most that many retrievals (question x configuration) in all; every configuration answers a
    sample of the tuning questions first, the best ``1/factor`` (``factor`` or ``[sweep] factor``,
    default 3) go on to a larger sample, and the survivors and the reference answer every question,
    where the table, the tests and the selection are computed as without it. The configurations
    dropped on a sample are rows marked ``dropped``, with their numbers on the questions they
    answered, outside the tests. A budget that covers the full sweep runs it all.

    InputError for a bad plan, corpus, split or budget.
    """
    started = time.perf_counter()
    plan = as_plan(config)
    if budget is not None or factor is not None:
        plan = replace(plan, budget=plan.budget if budget is None else budget,
                       factor=plan.factor if factor is None else factor)
    budget = plan.budget
    if factor is not None and budget is None:
        raise InputError("a halving factor without a budget: successive halving runs only with a budget",
                         hint=f"add {flag('budget', 'N')} (the most retrievals in all), or leave {flag('factor')} out")
    golden_set = as_golden(golden)
    corpus = Path(corpus)
    if not corpus.exists():
        raise InputError("corpus not found", where=str(corpus),
                         hint="a .jsonl/.jsonl.gz corpus or a folder of .md/.txt/.html")
    split = split_questions(golden_set, holdout, holdout_tag)
    tuning = [q.id for q in golden_set if q.answerable and (split is None or split.tunes_on(q.id))]
    halving = None if budget is None else schedule(len(plan.configurations), len(tuning), len(golden_set), budget,
                                                   plan.factor)
    folder = Path(output)
    try:
        (folder / "runs").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the sweep folder: {exc.strerror}", where=str(folder)) from None
    indexes = Indexes(corpus, folder / "cache")
    try:
        indexes.plan(list(plan.configurations))
    except InputError as exc:  # a configuration's option the retriever refuses: name the sweep file too
        exc.where = exc.where or plan.source
        raise
    builds = indexes.build(None if on_progress is None else lambda done, total, label: on_progress(
        "index", done, total, label))
    index_done = time.perf_counter()

    notes = list(plan.notes)
    total = len(golden_set) * len(plan.configurations) if halving is None else halving.cost

    def asked(name: str, done: int) -> None:
        if on_progress is not None:
            on_progress("run", done, total, name)
    dropped: list[ConfigRow] = []
    record = None
    if halving is None:
        if budget is not None:
            notes.append(f"budget {budget} covers the full sweep ({total} retrievals): no configuration was dropped")
        measured = run_all(plan, golden_set, indexes, folder, asked, notes)
    else:
        measured, dropped, record = run_rounds(plan, halving, golden_set, sample_order(tuning), indexes, folder,
                                               asked, notes)
        notes.append(halving_note(record))
    runs_done = time.perf_counter()

    ids = shared_questions(measured)
    tune = [i for i in ids if split is None or split.tunes_on(i)]
    held = [i for i in ids if split is not None and not split.tunes_on(i)]
    check_enough(tune, plan.alpha, "tune on" if split else "compare")
    rows = table(plan, measured, tune)
    selection = select(plan, measured, rows, tune)
    rows += dropped
    report = None
    if split is not None:
        report, more = holdout_check(plan, measured, selection.best, split, tune, held)
        notes += more
    elif len(rows) > 1:
        notes.append(f"{LOUD}the best configuration is chosen on the same questions its numbers come from, so they "
                     "are optimistic (the winner's curse); --holdout 0.3 measures the choice on questions it was "
                     "not chosen on")
    for m in measured:
        notes += [f"{m.config.name}: {w}" for w in m.evaluation.warnings]
    notes = list(dict.fromkeys(notes))
    first = measured[0].evaluation.meta
    meta = {
        "ragauge_version": __version__,
        "golden": first["golden"],
        "corpus": {"path": str(corpus), "hash": corpus_fingerprint(corpus)},
        "contract": first["contract"], "fetch": plan.fetch, "concurrency": plan.concurrency,
        "tokenizer": plan.tokenizer,
        "questions": {"answerable": len(ids), "tuned_on": len(tune), "held_out": len(held)},
        "seconds": {"indexes": round(index_done - started, 3), "runs": round(runs_done - index_done, 3),
                    "total": round(time.perf_counter() - started, 3)},
    }
    result = SweepResult(tuple(rows), plan.reference, plan.metrics, plan.primary, plan.alpha, selection, report,
                         tuple(builds), tuple(notes), meta, record)
    atomic_write(folder / RESULT_FILE, dumps(result.to_dict(), indent=2) + "\n", what="sweep result")
    return result


def halving_note(h: Halving) -> str:
    """The loud note of a sweep that dropped configurations on samples."""
    out = sum(len(r.dropped) for r in h.rounds)
    where = ", ".join(f"{len(r.dropped)} on {r.questions}" for r in h.rounds)
    return (f"{LOUD}successive halving dropped {out} of {out + h.confirmed} configurations on samples of the tuning "
            f"questions ({where} questions) before the others answered all {h.questions}: a drop on a sample is a "
            "heuristic, not a test (a configuration close to the best may have been dropped by the luck of the "
            "sample). Their numbers are on the questions they answered, and they are outside the table's tests "
            "(Holm covers the confirmed configurations only) and the selection; the survivors were chosen on part of "
            f"the questions that test them; {h.retrievals} retrievals made of the {h.full} of the full sweep "
            f"(budget {h.budget}, factor {h.factor})")


def read_sweep(path: str | Path) -> SweepResult:
    """A saved sweep result (``sweep.json``, or the sweep folder holding it)."""
    from ragauge.core.jsonl import read_json

    path = Path(path)
    if path.is_dir():
        path = path / RESULT_FILE
    data = read_json(path, what="sweep result", hint="pass the sweep.json a 'ragauge sweep' wrote")
    if not isinstance(data, dict):
        raise InputError("not a ragauge sweep result", where=str(path))
    try:
        return SweepResult.from_dict(data)
    except InputError as exc:
        exc.where = exc.where or str(path)
        raise
