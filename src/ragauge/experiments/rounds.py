"""Running a sweep's configurations: all of them on every question, or in successive-halving rounds
(``experiments.halving``) that ask each configuration only the questions its rounds add.

Every configuration's run file stays a valid ``ragauge run`` file after every round: a configuration
that answered every question has the header ``ragauge run`` writes for the whole golden set (so
``ragauge compare`` and ``ragauge run --resume`` take it); one dropped on a sample has the header of
a run over those questions (``golden_hash`` theirs) with a ``sample`` record naming the round, the
whole golden set and how many questions it holds, and ``ragauge eval`` says so next to its numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ragauge.core.files import atomic_write
from ragauge.core.jsonl import dumps
from ragauge.core.notes import LOUD
from ragauge.data.golden import GoldenSet
from ragauge.data.hits import QueryResult
from ragauge.data.run import Run
from ragauge.evaluation.evaluate import score_run
from ragauge.evaluation.options import EvalOptions
from ragauge.evaluation.spans import has_spans
from ragauge.experiments.analysis import Measured, _mean, table
from ragauge.experiments.ceiling import oracle_order
from ragauge.experiments.grid import Configuration, SweepPlan
from ragauge.experiments.halving import Schedule, _or_low, survivors
from ragauge.experiments.indexes import Indexes
from ragauge.experiments.result import ConfigRow, Halving, HalvingRound
from ragauge.formats.runs import write_run_jsonl
from ragauge.models.tokens import WORDS
from ragauge.retrieve.base import Retriever
from ragauge.retrieve.rescore import RescoredRetriever
from ragauge.runner.calls import Progress
from ragauge.runner.executor import ExecutorOptions
from ragauge.runner.executor import run_retriever as execute

Asked = Callable[[str, int], None]
"""``asked(configuration name, retrievals so far)``: called after each answered question."""


def measure(setup: Configuration, retriever: Retriever, golden: GoldenSet, run: Run, run_file: str,
            plan: SweepPlan, indexes: Indexes, notes: list[str]) -> Measured:
    """One configuration's run scored on ``golden`` (and, rescored, its ceiling); a note when the
    ceiling covers fewer candidates than the reranker reorders. Span labels and budgets counted by
    the plan's tokenizer read the corpus text."""
    corpus = indexes.texts if has_spans(golden) or plan.tokenizer != WORDS else None
    options = EvalOptions(list(plan.metrics), fetch=plan.fetch, known_documents=retriever.documents(),
                          corpus=corpus, tokenizer=plan.tokenizer)
    evaluation = score_run(golden, run, options)
    ceiling = None
    if isinstance(retriever, RescoredRetriever):
        ceiling = score_run(golden, oracle_order(golden, run, corpus), options)
        note = (f"{LOUD}{setup.name}: its ceiling is over the {plan.fetch} hits fetched, not all "
                f"{retriever.depth} candidates it reorders (fetch >= rerank_depth gives the full one)")
        if retriever.depth > plan.fetch and note not in notes:
            notes.append(note)
    return Measured(setup, retriever.spec, run_file, evaluation, tuple(indexes.index_builds(setup)), ceiling,
                    retriever.stage_latency() if isinstance(retriever, RescoredRetriever) else None)


def run_all(plan: SweepPlan, golden: GoldenSet, indexes: Indexes, folder: Path, asked: Asked | None,
            notes: list[str]) -> list[Measured]:
    """Every configuration on every question, its run written as it goes (``runs/SLUG.jsonl``)."""
    measured = []
    for number, setup in enumerate(plan.configurations):
        retriever = indexes.retriever(setup)
        run_path = folder / "runs" / f"{setup.slug}.jsonl"
        progress = Progress()
        offset = number * len(golden)
        if asked is not None:
            progress.on_result = lambda p, name=setup.name, at=offset: asked(name, at + p.done)
        run = execute(golden, retriever, run_path, ExecutorOptions(fetch=plan.fetch, concurrency=plan.concurrency),
                      progress=progress)
        measured.append(measure(setup, retriever, golden, run, f"runs/{run_path.name}", plan, indexes, notes))
    return measured


class _Answers:
    """The answers of one configuration so far, and its run file rewritten after each round."""

    def __init__(self, setup: Configuration, retriever: Retriever, folder: Path) -> None:
        self.setup, self.retriever = setup, retriever
        self.path = folder / "runs" / f"{setup.slug}.jsonl"
        self.results: dict[str, QueryResult] = {}
        self.meta: dict[str, Any] = {}

    def ask(self, questions: Sequence[str], golden: GoldenSet, plan: SweepPlan, progress: Progress) -> None:
        if not questions:
            return
        subset = GoldenSet.from_queries([golden.by_id[q] for q in questions], golden.source)
        run = execute(subset, self.retriever, None, ExecutorOptions(fetch=plan.fetch, concurrency=plan.concurrency),
                      progress=progress)
        self.meta = self.meta or dict(run.meta)
        self.results.update((r.id, r) for r in run.results())

    def write(self, golden: GoldenSet, sample: dict[str, Any] | None) -> Run:
        """The run over the questions answered so far, written atomically; ``sample`` (the record
        of a dropped configuration) unless they are the whole golden set."""
        answered = GoldenSet.from_queries([q for q in golden if q.id in self.results], golden.source)
        meta = {**self.meta, "golden_hash": answered.content_hash}
        if sample is not None:
            meta["sample"] = {**sample, "questions": len(answered), "golden_hash": golden.content_hash,
                              "golden_questions": len(golden)}
        results = [self.results[q.id] for q in answered]
        run = Run.from_results(results, meta=meta, source=str(self.path))
        write_run_jsonl(run, self.path)
        ended = {**meta, "ended": datetime.now(timezone.utc).isoformat(timespec="seconds"), "questions": len(results),
                 "errors": sum(r.error is not None for r in results)}  # the sidecar 'ragauge run' writes
        atomic_write(self.path.with_name(self.path.name + ".meta.json"), dumps(ended, indent=2) + "\n",
                     what="run metadata")
        return run


def run_rounds(plan: SweepPlan, schedule: Schedule, golden: GoldenSet, order: Sequence[str], indexes: Indexes,
               folder: Path, asked: Asked | None,
               notes: list[str]) -> tuple[list[Measured], list[ConfigRow], Halving]:
    """Successive halving (``experiments.halving``) over the sample ``order`` of the tuning
    questions: the configurations confirmed on every question (the reference included, in the
    sweep's order), the rows of those dropped (means on the questions each answered), the record."""
    answers = {c.name: _Answers(c, indexes.retriever(c), folder) for c in plan.configurations}
    candidates = [c.name for c in plan.configurations if c.name != plan.reference]
    made = 0

    def counting(name: str) -> Progress:
        def on_result(_: Progress) -> None:
            nonlocal made
            made += 1
            if asked is not None:
                asked(name, made)
        return Progress(on_result=on_result)

    rounds: list[HalvingRound] = []
    dropped: list[ConfigRow] = []
    done = 0
    for number, n in enumerate(schedule.samples, start=1):
        sample = GoldenSet.from_queries([golden.by_id[q] for q in order[:n]], golden.source)
        scored: dict[str, Measured] = {}
        for name in [plan.reference, *candidates]:
            a = answers[name]
            a.ask(order[done:n], golden, plan, counting(name))
            run = a.write(golden, {"round": number, "rule": f"successive halving, factor {plan.factor}"})
            scored[name] = measure(a.setup, a.retriever, sample, run, f"runs/{a.path.name}", plan, indexes, notes)
        keep = survivors({c: _mean(scored[c].evaluation.column(plan.primary, order[:n])) for c in candidates},
                         candidates, schedule.factor)
        out = [c for c in candidates if c not in keep]
        for name in out:
            own = table(replace(plan, reference=name), [scored[name]], order[:n])[0]
            dropped.append(replace(own, pareto=False, dropped=number, sample=n))
        rounds.append(HalvingRound(n, len(candidates) + 1, tuple(out)))
        candidates, done = keep, n
    confirmed = [c for c in plan.configurations if c.name == plan.reference or c.name in candidates]
    measured = []
    for setup in confirmed:
        a = answers[setup.name]
        a.ask([q.id for q in golden if q.id not in a.results], golden, plan, counting(setup.name))
        run = a.write(golden, None)
        measured.append(measure(setup, a.retriever, golden, run, f"runs/{a.path.name}", plan, indexes, notes))
    dropped.sort(key=lambda r: (-(r.dropped or 0), -_or_low(r.means[plan.primary])))
    return measured, dropped, Halving(schedule.budget, schedule.factor, tuple(rounds), len(confirmed), len(golden),
                                      made, schedule.full)
