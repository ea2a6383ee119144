"""The result of a sweep: one value model that every sweep report renders, saved as ``sweep.json``."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ragauge.comparison.result import MetricDelta

SWEEP_VERSION = 2
READS = (1, 2)
"""Versions ``SweepResult.from_dict`` reads: 2 added ``rerank_ms`` to a row (absent in 1: None)."""


@dataclass(frozen=True)
class IndexBuild:
    """One index of the sweep: what it is, where it lives, what it cost, who used it.

    ``build_seconds`` is the time its build took (recorded in the cache entry, so a reused entry
    reports the build it came from; None for an entry written before builds were timed);
    ``open_seconds`` the time this sweep spent opening it (the build itself when it was not
    cached); ``size_bytes`` the entry's size on disk; ``passages`` the documents or chunks it holds."""

    kind: str
    spec: str
    key: str
    path: str
    cached: bool
    build_seconds: float | None
    open_seconds: float
    size_bytes: int
    passages: int
    used_by: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "spec": self.spec, "key": self.key, "path": self.path, "cached": self.cached,
                "build_seconds": self.build_seconds, "open_seconds": self.open_seconds,
                "size_bytes": self.size_bytes, "passages": self.passages, "used_by": list(self.used_by)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> IndexBuild:
        return cls(str(d["kind"]), str(d["spec"]), str(d["key"]), str(d["path"]), bool(d["cached"]),
                   _opt(d.get("build_seconds")), float(d["open_seconds"]), int(d["size_bytes"]),
                   int(d["passages"]), tuple(str(n) for n in d.get("used_by", [])))


@dataclass(frozen=True)
class ConfigRow:
    """One configuration's line of the table.

    ``means`` are over the questions the sweep tunes on (all answerable ones without a holdout);
    ``deltas`` are paired tests against the reference configuration on the same questions (new =
    this row), Holm-corrected across every configuration x metric ({} for the reference itself).
    ``latency_ms`` holds p50 and p95 per question over every question asked (None: not measured).
    ``index_seconds`` and ``index_bytes`` add up the indexes the configuration uses. ``ceiling``, for a
    rescored configuration, holds each metric's mean had its hits been ordered perfectly
    (``experiments.ceiling``): the most any reordering of the same candidates could reach.

    ``dropped``: the successive-halving round (1-based) the configuration was dropped in, or None
    for a configuration measured on every question. A dropped row's ``means``, ``latency_ms`` and
    ``ceiling`` are over the ``sample`` questions it answered, it has no ``deltas`` and is never on
    the frontier: it is outside the table's tests and the selection.

    ``rerank_ms``, for a reranked configuration, is the latency the reranker adds, measured inside the
    retriever on every question: ``p50`` / ``p95`` of the reranking alone and ``first_p50`` of the
    first stage alone (``retrieve.rescore.RescoredRetriever.stage_latency``)."""

    name: str
    retriever: str
    options: dict[str, Any]
    spec: str
    run: str
    means: dict[str, float]
    deltas: dict[str, MetricDelta]
    latency_ms: dict[str, float] | None
    index_seconds: float | None
    index_bytes: int
    errors: int = 0
    pareto: bool = False
    ceiling: dict[str, float] | None = None
    dropped: int | None = None
    sample: int | None = None
    rerank_ms: dict[str, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "retriever": self.retriever, "options": self.options, "spec": self.spec,
                "run": self.run, "means": {m: _num(v) for m, v in self.means.items()},
                "deltas": {m: d.to_dict() for m, d in self.deltas.items()}, "latency_ms": self.latency_ms,
                "index_seconds": self.index_seconds, "index_bytes": self.index_bytes, "errors": self.errors,
                "pareto": self.pareto,
                "ceiling": None if self.ceiling is None else {m: _num(v) for m, v in self.ceiling.items()},
                "rerank_ms": self.rerank_ms,
                **({} if self.dropped is None else {"dropped": self.dropped, "sample": self.sample})}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ConfigRow:
        latency, ceiling = d.get("latency_ms"), d.get("ceiling")
        return cls(str(d["name"]), str(d["retriever"]), dict(d.get("options", {})), str(d["spec"]), str(d["run"]),
                   {m: _float(v) for m, v in d["means"].items()},
                   {m: MetricDelta.from_dict(v) for m, v in d.get("deltas", {}).items()},
                   None if latency is None else {k: float(v) for k, v in latency.items()},
                   _opt(d.get("index_seconds")), int(d.get("index_bytes", 0)), int(d.get("errors", 0)),
                   bool(d.get("pareto", False)),
                   None if ceiling is None else {m: _float(v) for m, v in ceiling.items()},
                   _opt_int(d.get("dropped")), _opt_int(d.get("sample")),
                   _latencies(d.get("rerank_ms")))


@dataclass(frozen=True)
class Selection:
    """Which configuration is best on the ``primary`` metric, and whether that is a finding.

    ``tests`` holds, for every other configuration, the paired test of the best against it on the
    primary metric (new = the best), Holm-corrected over those tests. ``winner`` is the best only
    when every one of them is significant; ``tied`` lists the best and every configuration not
    significantly below it. ``statement`` says it in words."""

    primary: str
    best: str
    winner: str | None
    tied: tuple[str, ...]
    tests: dict[str, MetricDelta]
    statement: str

    def to_dict(self) -> dict[str, Any]:
        return {"primary": self.primary, "best": self.best, "winner": self.winner, "tied": list(self.tied),
                "tests": {n: d.to_dict() for n, d in self.tests.items()}, "statement": self.statement}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Selection:
        return cls(str(d["primary"]), str(d["best"]), d.get("winner"), tuple(d.get("tied", [])),
                   {n: MetricDelta.from_dict(v) for n, v in d.get("tests", {}).items()}, str(d["statement"]))


@dataclass(frozen=True)
class HoldoutReport:
    """The configuration chosen on the tuning questions, measured on questions it was not chosen on.

    ``rule`` says how the questions were split; ``tune`` and ``held_out`` count the answerable
    questions of each part. ``tuned`` are the chosen configuration's means on the tuning part (where
    it won, so optimistic), ``means`` on the held-out part, ``reference_means`` the reference's there,
    and ``deltas`` the paired tests of chosen - reference on the held-out part, Holm over metrics
    ({} when the reference itself was chosen)."""

    rule: str
    tune: int
    held_out: int
    chosen: str
    tuned: dict[str, float]
    means: dict[str, float]
    reference_means: dict[str, float]
    deltas: dict[str, MetricDelta] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "tune": self.tune, "held_out": self.held_out, "chosen": self.chosen,
                "tuned": {m: _num(v) for m, v in self.tuned.items()},
                "means": {m: _num(v) for m, v in self.means.items()},
                "reference_means": {m: _num(v) for m, v in self.reference_means.items()},
                "deltas": {m: d.to_dict() for m, d in self.deltas.items()}}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HoldoutReport:
        return cls(str(d["rule"]), int(d["tune"]), int(d["held_out"]), str(d["chosen"]),
                   {m: _float(v) for m, v in d["tuned"].items()}, {m: _float(v) for m, v in d["means"].items()},
                   {m: _float(v) for m, v in d["reference_means"].items()},
                   {m: MetricDelta.from_dict(v) for m, v in d.get("deltas", {}).items()})


@dataclass(frozen=True)
class SweepResult:
    """Every configuration's row, the selection, the holdout check, the indexes and what the
    numbers rest on (``meta``: golden set, corpus, fetch depth, concurrency, questions tuned on,
    wall time per stage)."""

    rows: tuple[ConfigRow, ...]
    reference: str
    metrics: tuple[str, ...]
    primary: str
    alpha: float
    selection: Selection
    holdout: HoldoutReport | None
    indexes: tuple[IndexBuild, ...]
    notes: tuple[str, ...]
    meta: dict[str, Any]
    halving: Halving | None = None

    @property
    def confirmed(self) -> tuple[ConfigRow, ...]:
        """The rows measured on every question: the table (all rows without successive halving)."""
        return tuple(r for r in self.rows if r.dropped is None)

    @property
    def dropped(self) -> tuple[ConfigRow, ...]:
        """The rows successive halving dropped on a sample (``ConfigRow.dropped``)."""
        return tuple(r for r in self.rows if r.dropped is not None)

    def row(self, name: str) -> ConfigRow:
        """The row of configuration ``name`` (KeyError when there is none)."""
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {"ragauge_sweep": SWEEP_VERSION, "reference": self.reference, "metrics": list(self.metrics),
                "primary": self.primary, "alpha": self.alpha, "rows": [r.to_dict() for r in self.rows],
                "selection": self.selection.to_dict(),
                "holdout": None if self.holdout is None else self.holdout.to_dict(),
                "indexes": [i.to_dict() for i in self.indexes], "notes": list(self.notes), "meta": self.meta,
                **({} if self.halving is None else {"halving": self.halving.to_dict()})}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SweepResult:
        """The inverse of ``to_dict``; InputError for another version or a malformed file."""
        from ragauge.errors import InputError

        if d.get("ragauge_sweep") not in READS:
            raise InputError(f"not a ragauge sweep result (version {d.get('ragauge_sweep')!r})",
                             hint="pass the sweep.json a 'ragauge sweep' wrote")
        try:
            held, halving = d.get("holdout"), d.get("halving")
            return cls(tuple(ConfigRow.from_dict(r) for r in d["rows"]), str(d["reference"]),
                       tuple(str(m) for m in d["metrics"]), str(d["primary"]), float(d["alpha"]),
                       Selection.from_dict(d["selection"]), None if held is None else HoldoutReport.from_dict(held),
                       tuple(IndexBuild.from_dict(i) for i in d.get("indexes", [])), tuple(d.get("notes", [])),
                       dict(d.get("meta", {})), None if halving is None else Halving.from_dict(halving))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"a malformed sweep result ({type(exc).__name__}: {exc})",
                             hint="pass the sweep.json a 'ragauge sweep' wrote") from None


@dataclass(frozen=True)
class HalvingRound:
    """One sample round of successive halving: ``configurations`` (the reference included) asked
    the first ``questions`` tuning questions of the sample order; the names it ``dropped``."""

    questions: int
    configurations: int
    dropped: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"questions": self.questions, "configurations": self.configurations, "dropped": list(self.dropped)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HalvingRound:
        return cls(int(d["questions"]), int(d["configurations"]), tuple(str(n) for n in d["dropped"]))


@dataclass(frozen=True)
class Halving:
    """How successive halving ran (``experiments.halving``): the ``budget`` (retrievals in all) and
    ``factor``, the sample ``rounds``, the ``confirmed`` configurations (the reference included)
    that then answered all ``questions`` of the golden set, the ``retrievals`` made, and ``full``,
    what the sweep makes without halving."""

    budget: int
    factor: int
    rounds: tuple[HalvingRound, ...]
    confirmed: int
    questions: int
    retrievals: int
    full: int

    def to_dict(self) -> dict[str, Any]:
        return {"budget": self.budget, "factor": self.factor, "rounds": [r.to_dict() for r in self.rounds],
                "confirmed": self.confirmed, "questions": self.questions, "retrievals": self.retrievals,
                "full": self.full}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Halving:
        return cls(int(d["budget"]), int(d["factor"]), tuple(HalvingRound.from_dict(r) for r in d["rounds"]),
                   int(d["confirmed"]), int(d["questions"]), int(d["retrievals"]), int(d["full"]))


def _num(value: float) -> float | None:
    """NaN (a mean over no question) is written as null."""
    return None if isinstance(value, float) and math.isnan(value) else value


def _float(value: Any) -> float:
    from ragauge.core.numbers import check_number

    return math.nan if value is None else check_number(value, "a sweep mean")


def _latencies(value: Any) -> dict[str, float] | None:
    from ragauge.core.numbers import NON_NEGATIVE, check_number

    return None if value is None else {str(k): check_number(v, "a sweep latency", NON_NEGATIVE)
                                       for k, v in dict(value).items()}


def _opt(value: Any) -> float | None:
    return None if value is None else float(value)


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)
