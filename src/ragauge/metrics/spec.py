"""Metric specs: ``recall@10`` parses to a hashable value whose text form parses back to it; so does
``recall@2000t``, a token budget (see ``ragauge.metrics.budget``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragauge.errors import InputError

if TYPE_CHECKING:
    from ragauge.core.numbers import Range

_CUTOFF = re.compile(r"[0-9]{1,12}")  # ASCII digits only: "²".isdigit() is True, int("²") fails
_BUDGET = re.compile(r"([0-9]{1,12})[tT]")
MAX_CUTOFF = 10**9
DEFAULT_K = 5
"""The cutoff of the default metrics (hit@k, recall@k, mrr, ndcg@k) wherever k is not given."""
_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*(?:@\s*(\S+))?\s*$")


@dataclass(frozen=True, order=True)
class MetricSpec:
    """A metric family name and an optional rank cutoff ``k`` (None: the whole ranking), or instead a
    token ``budget``: the hits that fit in that many words of text (``recall@2000t``; see
    ``ragauge.metrics.budget``)."""

    name: str
    k: int | None = None
    budget: int | None = None

    def __str__(self) -> str:
        if self.budget is not None:
            return f"{self.name}@{self.budget}t"
        return self.name if self.k is None else f"{self.name}@{self.k}"

    def __repr__(self) -> str:
        return f"MetricSpec({str(self)!r})"

    @property
    def family(self) -> object:
        from ragauge.metrics.registry import METRICS

        return METRICS[self.name]


def parse_metric(text: str) -> MetricSpec:
    """Parse ``name`` or ``name@k`` (case-insensitive, aliases allowed) into a canonical spec.

    ``name@Nt`` asks for a token budget of N words instead of a rank cutoff (families with a budget
    form only). Raises InputError naming the closest valid metric names for an unknown name, and for a
    cutoff that is missing, forbidden or not a positive integer.
    """
    from ragauge.metrics.registry import ALIASES, METRICS

    m = _SPEC.match(text) if isinstance(text, str) else None
    if not m:
        raise InputError(f"cannot parse metric {text!r}", hint="write a metric as name or name@k, e.g. ndcg@10")
    raw_name, raw_k = m.group(1).lower(), m.group(2)
    name = ALIASES.get(raw_name, raw_name)
    if name not in METRICS:
        names = sorted(set(METRICS) | set(ALIASES))
        import difflib  # only for a name it does not know

        close = difflib.get_close_matches(raw_name, names, n=3, cutoff=0.5)
        suggestion = f"did you mean {', '.join(close)}? " if close else ""
        raise InputError(f"unknown metric {m.group(1)!r}",
                         hint=f"{suggestion}valid metrics: {', '.join(sorted(METRICS))}")
    family = METRICS[name]
    k: int | None = None
    budget = _BUDGET.fullmatch(raw_k) if raw_k is not None else None
    if budget is not None:
        if family.budget_kernel is None:
            with_budget = ", ".join(f"{n}@{budget.group(1)}t" for n, f in METRICS.items() if f.budget_kernel)
            raise InputError(f"metric {name!r} has no token-budget form ({text!r})",
                             hint=f"budget metrics: {with_budget}")
        if not 1 <= int(budget.group(1)) <= MAX_CUTOFF:
            raise InputError(f"the token budget in {text!r} must be an integer from 1 to {MAX_CUTOFF:,}",
                             hint=f"e.g. {name}@2000t")
        return MetricSpec(name, None, int(budget.group(1)))
    if raw_k is not None:
        if not _CUTOFF.fullmatch(raw_k) or not 1 <= int(raw_k) <= MAX_CUTOFF:
            raise InputError(f"the cutoff in {text!r} must be an integer from 1 to {MAX_CUTOFF:,}",
                             hint=f"e.g. {name}@10")
        k = int(raw_k)
    if k is None and family.cutoff == "required":
        raise InputError(f"metric {name!r} needs a cutoff", hint=f"write {name}@k, e.g. {name}@10")
    if k is not None and family.cutoff == "none":
        raise InputError(f"metric {name!r} takes no cutoff", hint=f"write {name}")
    return MetricSpec(name, k)


def parse_metrics(text: str | Sequence[str]) -> tuple[MetricSpec, ...]:
    """Parse a comma-separated list (or a list of strings), dropping repeats, keeping order."""
    items = text.split(",") if isinstance(text, str) else [p for t in text for p in t.split(",")]
    specs = [parse_metric(item) for item in items if item.strip()]
    if not specs:
        raise InputError("no metric given", hint="e.g. --metrics hit@5,recall@5,mrr,ndcg@5")
    return tuple(dict.fromkeys(specs))


def default_metrics(ks: list[int] | tuple[int, ...]) -> tuple[MetricSpec, ...]:
    """The default set for cutoffs ``ks``: hit@k, recall@k, ndcg@k for each k, and mrr."""
    out: list[MetricSpec] = []
    for k in ks:
        out += [MetricSpec("hit", k), MetricSpec("recall", k)]
    out.append(MetricSpec("mrr"))
    out += [MetricSpec("ndcg", k) for k in ks]
    return tuple(out)


def deepest_ndcg(metrics: Sequence[str]) -> str | None:
    """nDCG at the largest rank cutoff among ``metrics`` (the first of equals; ``ndcg`` without a
    cutoff counts as 0), or None without one: what a sweep chooses its winner on by default and what
    a report leads with. Names that do not parse are passed over."""
    found: list[tuple[int, str]] = []
    for metric in metrics:
        try:
            spec = parse_metric(metric)
        except InputError:
            continue
        if spec.name == "ndcg":
            found.append((spec.k or 0, metric))
    return max(found, key=lambda pair: pair[0])[1] if found else None


def lower_is_better(metric: str) -> bool:
    """Whether a rise of ``metric`` (a spec's text) is a regression: the counts of
    ``metrics.trajectory`` (calls made). Every other metric is a share in [0, 1], higher better."""
    return bool(getattr(parse_metric(metric).family, "lower_is_better", False))


def value_range(metric: str) -> Range:
    """The values ``metric`` (a spec's text) can take per question and as a mean: [0, 1] for a share,
    [0, inf) for a count of calls (``lower_is_better``). An unknown name gets [0, 1]."""
    from ragauge.core.numbers import NON_NEGATIVE, UNIT

    try:
        return NON_NEGATIVE if lower_is_better(metric) else UNIT
    except InputError:
        return UNIT


def refuse_counts(metrics: Sequence[str], what: str) -> None:
    """InputError when ``what`` (a sequential comparison or gate: one call of a retriever per question,
    on values in [0, 1]) is asked to decide on a count of calls (``lower_is_better``)."""
    counts = [m for m in metrics if lower_is_better(m)]
    if counts:
        raise InputError(f"{what} cannot decide on {', '.join(counts)}: a count of calls, where a sequential "
                         "test calls a retriever once a question", hint="decide on a share such as ndcg@10, or "
                         "compare or gate the multi-call runs without sequential testing")
