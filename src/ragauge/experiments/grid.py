"""The configurations a sweep compares, read from a sweep file (TOML) or given as Python data.

A sweep file holds an optional ``[sweep]`` table and one ``[[config]]`` table per configuration or
grid::

    [sweep]
    metrics = ["ndcg@10", "recall@10", "mrr"]   # default: hit@k, recall@k, mrr, ndcg@k for k in `k`
    k = [10]                                    # cutoffs of the default metrics (default 10)
    primary = "ndcg@10"                         # the metric a winner is chosen on (default: ndcg@k
                                                # at the largest k, else the first metric)
    reference = "bm25"                          # differences are against it (default: the first)
    fetch = 100                                 # hits asked per question (default 100)
    alpha = 0.05                                # significance level, Holm-corrected
    concurrency = 1                             # calls in flight (1: latencies are not contended)
    tokenizer = "words"                         # what token budgets (recall@2000t) count: words,
                                                # minilm or hf:PATH (ragauge.models.tokens)
    budget = 2000                               # successive halving within 2000 retrievals (default:
                                                # none, every configuration answers every question)
    factor = 3                                  # halving keeps the best 1/factor each round (default 3)

    [[config]]                                  # a grid: every combination of the lists
    retriever = "bm25"                          # bm25 | dense | hybrid
    k1 = [0.9, 1.5]
    b = [0.4, 0.75]
    chunking = [{ chunk_size = 0 }, { chunk_size = 200, chunk_overlap = 20 }]   # a group: set together

    [[config]]                                  # one configuration: no list
    name = "hybrid weighted"
    retriever = "hybrid"
    fusion = "weighted"
    weight = 0.3

A value that is a list of scalars is an axis of the grid; a list of tables is a group, each table
setting several options together (so chunk sizes and their overlaps, or a fusion and its weight,
vary as pairs); the group's key is only a label. A configuration is named by ``name`` (or its
retriever and the options it sets) followed by the options its grid varies, e.g. ``bm25 k1=0.9
b=0.4 chunk_size=200 chunk_overlap=20``. Each configuration is a retriever spec of the built-in
``bm25:``, ``dense:`` or ``hybrid:`` retriever with these options, so ``ragauge run`` reproduces it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from ragauge.core.numbers import COUNT, PROBABILITY, check_number
from ragauge.errors import InputError
from ragauge.experiments.halving import DEFAULT_FACTOR, FACTOR
from ragauge.metrics.spec import MetricSpec, deepest_ndcg, default_metrics, lower_is_better, parse_metric, parse_metrics
from ragauge.stats import DEFAULT_ALPHA

RETRIEVERS = ("bm25", "dense", "hybrid")
CHUNKING = ("chunk_size", "chunk_overlap", "chunk_unit", "title")
BM25 = ("k1", "b", "method", "stemmer", "stopwords")
DENSE = ("embedder",)
FUSION = ("fusion", "rrf_k", "weight", "depth")
RERANK = ("rerank", "rerank_depth")
OPTIONS: dict[str, tuple[str, ...]] = {
    "bm25": CHUNKING + BM25 + RERANK,
    "dense": CHUNKING + DENSE,
    "hybrid": CHUNKING + BM25 + DENSE + FUSION + RERANK,
}
"""The options a sweep may set, per retriever: index-time (chunking, title, BM25's analysis and, as
bm25s scores eagerly, k1/b; the embedder) and query-time (fusion, its weight or k, fetch depth;
reranking of the first stage's top hits by a bi-encoder, a cross-encoder or a ``python:`` function,
``retrieve.rescore``)."""
SWEEP_KEYS = ("metrics", "k", "primary", "reference", "fetch", "alpha", "concurrency", "budget", "factor",
              "tokenizer")
DEFAULT_K = (10,)
DEFAULT_FETCH = 100
MAX_CONFIGURATIONS = 1000
"""The most configurations a sweep file may expand to: each is an index and a pass over the golden
set, so a grid beyond this (a typo of a range, say) would run for days; it is refused up front with
its count."""
NUMBERS = {"k1": (0.0, None), "b": (0.0, 1.0), "weight": (0.0, 1.0), "rrf_k": (1.0, None), "depth": (1.0, 100_000.0),
           "chunk_size": (0.0, 1_000_000.0), "chunk_overlap": (0.0, 1_000_000.0), "rerank_depth": (1.0, 100_000.0)}
"""Numeric options and their ranges (``None``: unbounded); a boolean is not a number here."""
INTEGERS = ("rrf_k", "depth", "chunk_size", "chunk_overlap", "rerank_depth")
FLAGS = ("title",)
Scalar = str | int | float | bool


@dataclass(frozen=True)
class Configuration:
    """One retriever setup: a built-in ``retriever`` with its spec ``options`` (name -> value)."""

    name: str
    retriever: str
    options: tuple[tuple[str, Scalar], ...] = ()

    def spec(self, corpus: str | Path) -> str:
        """The retriever spec, e.g. ``bm25:corpus.jsonl?k1=0.9&chunk_size=200``."""
        query = urlencode([(key, spec_text(value)) for key, value in self.options])
        return f"{self.retriever}:{corpus}" + (f"?{query}" if query else "")

    @property
    def settings(self) -> dict[str, Scalar]:
        return dict(self.options)

    @property
    def slug(self) -> str:
        """A file name for the configuration's run: lower case, ``[a-z0-9._-]`` only."""
        return re.sub(r"[^a-z0-9._-]+", "-", self.name.lower()).strip("-.") or "config"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "retriever": self.retriever, "options": dict(self.options)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Configuration:
        return cls(str(d["name"]), str(d["retriever"]), tuple(dict(d.get("options", {})).items()))


@dataclass(frozen=True)
class SweepPlan:
    """What a sweep runs and how it reads the results (see the module docstring for each field)."""

    configurations: tuple[Configuration, ...]
    metrics: tuple[str, ...]
    primary: str
    reference: str
    fetch: int = DEFAULT_FETCH
    alpha: float = DEFAULT_ALPHA
    concurrency: int = 1
    notes: tuple[str, ...] = ()
    budget: int | None = None
    factor: int = DEFAULT_FACTOR
    tokenizer: str = "words"
    source: str | None = None
    """The sweep file the plan was read from: errors about a configuration name it."""


def spec_text(value: Scalar) -> str:
    """A TOML value as a spec option: booleans as 1/0, numbers as Python writes them."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return repr(value) if isinstance(value, float) else str(value)


def read_plan(path: str | Path) -> SweepPlan:
    """The sweep plan of a TOML file (InputError naming the file and, where it can, the line)."""
    from ragauge.config import key_line, read_toml

    path = Path(path)
    data = read_toml(path)
    try:
        return replace(plan_from_dict(data), source=str(path))
    except _KeyedError as exc:
        exc.where = exc.where or key_line(path, exc.key) or str(path)  # the file at least, when no line is found
        raise
    except InputError as exc:
        exc.where = exc.where or str(path)
        raise


def plan_from_dict(data: Mapping[str, Any]) -> SweepPlan:
    """The sweep plan of a parsed sweep file: ``{"sweep": {...}, "config": [{...}, ...]}``."""
    unknown = set(data) - {"sweep", "config"}
    if unknown:
        raise _error(f"unknown table(s) {', '.join(sorted(unknown))} in the sweep file", sorted(unknown)[0],
                     hint="a sweep file holds a [sweep] table and [[config]] tables")
    head = data.get("sweep", {})
    if not isinstance(head, Mapping):
        raise _error("'sweep' must be a table", "sweep")
    bad = set(head) - set(SWEEP_KEYS)
    if bad:
        raise _error(f"unknown [sweep] key(s) {', '.join(sorted(bad))}", sorted(bad)[0],
                     hint=f"known: {', '.join(SWEEP_KEYS)}")
    tables = data.get("config")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, Mapping) for t in tables):
        raise _error("the sweep file has no [[config]] table", "config",
                     hint='add one per configuration or grid, e.g. [[config]] retriever = "bm25" k1 = [0.9, 1.5]')
    configurations = [c for number, table in enumerate(tables, start=1) for c in expand(table, number)]
    if len(configurations) > MAX_CONFIGURATIONS:
        raise _error(f"the sweep has {len(configurations):,} configurations in all, more than {MAX_CONFIGURATIONS:,}",
                     "config", hint="sweep fewer values, or split the sweep file")
    _check_unique(configurations)
    metrics = _metrics(head)
    primary = _primary(head, metrics)
    names = [c.name for c in configurations]
    reference = head.get("reference", names[0])
    if reference not in names:
        raise _error(f"reference {reference!r} is not a configuration of the sweep", "reference",
                     hint=f"one of: {', '.join(names[:10])}{' ...' if len(names) > 10 else ''}")
    budget = head.get("budget")
    return SweepPlan(tuple(configurations), metrics, primary, reference,
                     int(check_number(head.get("fetch", DEFAULT_FETCH), "[sweep] fetch", COUNT)),
                     check_number(head.get("alpha", DEFAULT_ALPHA), "[sweep] alpha", PROBABILITY),
                     int(check_number(head.get("concurrency", 1), "[sweep] concurrency", COUNT)),
                     budget=None if budget is None else int(check_number(budget, "[sweep] budget", COUNT)),
                     factor=int(check_number(head.get("factor", DEFAULT_FACTOR), "[sweep] factor", FACTOR)),
                     tokenizer=_tokenizer(head))



def _tokenizer(head: Mapping[str, Any]) -> str:
    from ragauge.models.tokens import NAMES_HINT, WORDS, check_tokenizer_name

    name = head.get("tokenizer", WORDS)
    try:
        return check_tokenizer_name(name if isinstance(name, str) else "")
    except InputError:
        raise _error(f"[sweep] tokenizer must be words, minilm or hf:PATH, got {name!r}", "tokenizer",
                     hint=NAMES_HINT) from None


def expand(table: Mapping[str, Any], number: int = 1) -> list[Configuration]:
    """The configurations of one ``[[config]]`` table: one, or one per combination of its lists."""
    where = f"[[config]] #{number}"
    retriever = table.get("retriever")
    if retriever not in RETRIEVERS:
        raise _error(f"{where}: 'retriever' must be one of {', '.join(RETRIEVERS)}, got {retriever!r}", "retriever")
    name = table.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise _error(f"{where}: 'name' must be a non-empty string", "name")
    fixed: list[tuple[str, Scalar]] = []
    axes: list[list[tuple[tuple[str, Scalar], ...]]] = []
    for key, value in table.items():
        if key in ("retriever", "name"):
            continue
        if isinstance(value, list):
            if not value:
                raise _error(f"{where}: {key} is an empty list", key)
            if all(isinstance(v, Mapping) for v in value):
                axes.append([tuple(_option(str(k), v, retriever, where) for k, v in entry.items()) for entry in value])
            else:
                axes.append([(_option(key, v, retriever, where),) for v in value])
        elif isinstance(value, Mapping):
            raise _error(f"{where}: {key} is a table; a group is a list of tables", key,
                         hint=f"{key} = [{{ chunk_size = 0 }}, {{ chunk_size = 200, chunk_overlap = 20 }}]")
        else:
            fixed.append(_option(key, value, retriever, where))
    prefix = name or " ".join([retriever, *(f"{k}={spec_text(v)}" for k, v in fixed)])
    count = 1
    for axis in axes:
        count *= len(axis)
    if count > MAX_CONFIGURATIONS:
        raise _error(f"{where}: the grid has {count:,} configurations (" +
                     " x ".join(str(len(a)) for a in axes) + f"), more than {MAX_CONFIGURATIONS:,}", "config",
                     hint="sweep fewer values per option, or split the grid (successive halving: [sweep] budget)")
    out = []
    for combination in itertools.product(*axes):
        varied = [option for part in combination for option in part]
        keys = [k for k, _ in fixed + varied]
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            raise _error(f"{where}: option(s) {', '.join(repeated)} set twice in one combination", repeated[0])
        label = " ".join([prefix, *(f"{k}={spec_text(v)}" for k, v in varied)])
        out.append(Configuration(label, retriever, tuple(fixed + varied)))
    return out


def _option(key: str, value: Any, retriever: str, where: str) -> tuple[str, Scalar]:
    if key not in OPTIONS[retriever]:
        raise _error(f"{where}: unknown {retriever} option {key!r}", key,
                     hint=f"options of {retriever}: {', '.join(OPTIONS[retriever])}")
    if key in NUMBERS:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _error(f"{where}: {key} must be a number, got {value!r}", key,
                         hint=f"e.g. {key} = {1 if key in INTEGERS else 0.9}" + (" (true is not read as 1)"
                                                                                 if isinstance(value, bool) else ""))
        low, high = NUMBERS[key]
        if not (value == value and abs(value) != float("inf")) or value < low or (high is not None and value > high) \
                or (key in INTEGERS and value != int(value)):
            limits = f"{'an integer' if key in INTEGERS else 'a number'} >= {low:g}" + (
                f" and <= {high:g}" if high is not None else "")
            raise _error(f"{where}: {key} must be {limits}, got {value!r}", key)
    elif key in FLAGS:
        if not isinstance(value, bool):
            raise _error(f"{where}: {key} must be true or false, got {value!r}", key)
    elif not isinstance(value, str):
        raise _error(f"{where}: {key} must be a string, got {value!r}", key)
    if key in NAMED:
        _check_named(key, value, where)
    return key, value


NAMED = ("rerank", "embedder")
"""Options whose value names a model: checked when the plan is read, without loading anything."""


def _check_named(key: str, value: Scalar, where: str) -> None:
    from ragauge.models.embedders import check_name
    from ragauge.retrieve.rescore import reranker_of

    if not isinstance(value, str):
        raise _error(f"{where}: {key} must be a string, got {value!r}", key,
                     hint='e.g. rerank = "minilm", "cross-encoder:models/ms-marco-MiniLM-L6" or "python:mod:fn"'
                     if key == "rerank" else 'e.g. embedder = "minilm", "hash" or "python:mod:fn"')
    try:
        if key == "rerank":
            reranker_of(value)
        else:
            check_name(value)
    except InputError as exc:
        raise _error(f"{where}: {exc.message}", key, hint=exc.hint) from None


def _check_unique(configurations: Sequence[Configuration]) -> None:
    seen: dict[str, Configuration] = {}
    slugs: dict[str, str] = {}
    for c in configurations:
        if c.name in seen:
            raise _error(f"two configurations are named {c.name!r}", "name",
                         hint="give each [[config]] table its own name = \"...\" (or remove the repeat)")
        if c.slug in slugs:
            raise _error(f"configurations {slugs[c.slug]!r} and {c.name!r} would share the run file {c.slug}.jsonl",
                         "name", hint="rename one of them")
        seen[c.name] = c
        slugs[c.slug] = c.name


def _metrics(head: Mapping[str, Any]) -> tuple[str, ...]:
    if "metrics" in head:
        value = head["metrics"]
        if not isinstance(value, (str, list)):
            raise _error("[sweep] metrics must be a list of metric specs", "metrics", hint='e.g. ["ndcg@10", "mrr"]')
        return tuple(str(s) for s in parse_metrics(value))
    ks = head.get("k", list(DEFAULT_K))
    ks = [ks] if isinstance(ks, int) and not isinstance(ks, bool) else ks
    if not isinstance(ks, list) or not ks:
        raise _error("[sweep] k must be a cutoff or a list of cutoffs", "k", hint="e.g. k = [5, 10]")
    return tuple(str(s) for s in default_metrics([int(check_number(k, "[sweep] k", COUNT)) for k in ks]))


def _primary(head: Mapping[str, Any], metrics: tuple[str, ...]) -> str:
    if "primary" in head:
        primary = str(parse_metric(str(head["primary"])))
        if primary not in metrics:
            raise _error(f"primary metric {primary} is not among the metrics ({', '.join(metrics)})", "primary")
    else:
        ndcg = deepest_ndcg(metrics)
        primary = metrics[0] if "metrics" in head or ndcg is None else ndcg
    if lower_is_better(primary):
        raise _error(f"primary metric {primary} is a count where lower is better: a sweep chooses its winner on a "
                     "share of the evidence", "primary", hint="set primary to a metric such as ndcg@10 or recall@10")
    return primary


class _KeyedError(InputError):
    """An InputError that knows the TOML key it is about, so ``read_plan`` can name its line."""

    def __init__(self, message: str, key: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.key = key


def _error(message: str, key: str, *, hint: str | None = None) -> InputError:
    return _KeyedError(message, key, hint)


def plan_metrics(plan: SweepPlan) -> tuple[MetricSpec, ...]:
    """The plan's metrics as specs."""
    return parse_metrics(list(plan.metrics))
