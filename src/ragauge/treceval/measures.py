"""trec_eval measures ragauge reproduces: names, default parameters, order, and how to compute them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ragauge.errors import InputError, flag
from ragauge.metrics.rankings import Rankings
from ragauge.metrics.registry import METRICS

STANDARD_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval measure. ``kind``: "count" (summed, printed as an integer), "mean"
    (averaged over queries), "gm" (geometric mean, summary only) or "runid"."""

    name: str
    kind: str
    cutoffs: tuple[int, ...] | None = None
    compute: Callable[[Rankings, int | None], np.ndarray] | None = None


def _num_ret(r: Rankings, k: int | None) -> np.ndarray:
    return r.lengths.astype(np.float64)


def _num_rel(r: Rankings, k: int | None) -> np.ndarray:
    return r.num_rel.astype(np.float64)


def _num_rel_ret(r: Rankings, k: int | None) -> np.ndarray:
    return r.count_rel_within(None)


def _unj(r: Rankings, k: int | None) -> np.ndarray:
    """trec_eval 10's ``unj_k``: unjudged documents in the top k, divided by k even when fewer came
    back; a document is unjudged when the qrels do not list it or give it a negative grade. Not
    1 - judged@k (ragauge's and ir_measures' judged@k divide by what came back, and count a
    negative grade as a judgement)."""
    if k is None:
        raise ValueError("unj needs a cutoff")
    unjudged: np.ndarray = np.minimum(r.lengths, k) - r.count_judged_within(k, min_grade=0.0)
    return unjudged / float(k)


def _kernels() -> dict[str, Callable[[Rankings, int | None], np.ndarray]]:
    """trec_eval measure name -> kernel: the counts and unj here, every other from the metric registry."""
    kernels: dict[str, Callable[[Rankings, int | None], np.ndarray]] = {
        "num_ret": _num_ret, "num_rel": _num_rel, "num_rel_ret": _num_rel_ret, "unj": _unj}
    for family in METRICS.values():
        kernels.update((name, family.kernel) for name in family.trec_measures)
    return kernels


# trec_eval's output: name, how it is summarized, default cutoffs, in trec_eval's own table order
# (output follows this order whatever the order of -m flags). The kernels come from the registry.
_TABLE: tuple[tuple[str, str, tuple[int, ...] | None], ...] = (
    ("runid", "runid", None), ("num_q", "num_q", None), ("num_ret", "count", None), ("num_rel", "count", None),
    ("num_rel_ret", "count", None), ("map", "mean", None), ("gm_map", "gm", None), ("Rprec", "mean", None),
    ("recip_rank", "mean", None), ("P", "mean", STANDARD_CUTOFFS), ("recall", "mean", STANDARD_CUTOFFS),
    ("ndcg", "mean", None), ("ndcg_cut", "mean", STANDARD_CUTOFFS), ("map_cut", "mean", STANDARD_CUTOFFS),
    ("success", "mean", (1, 5, 10)), ("unj", "mean", (5, 10, 20)),
)
_KERNELS = _kernels()
MEASURES: tuple[TrecMeasure, ...] = tuple(TrecMeasure(name, kind, cutoffs, _KERNELS.get(name))
                                          for name, kind, cutoffs in _TABLE)
BY_NAME = {m.name: m for m in MEASURES}

# trec_eval's sets, restricted to the measures above; the rest is listed as not supported.
OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "recip_rank", "P")
OFFICIAL_UNSUPPORTED = ("bpref", "iprec_at_recall")
ALL_TREC = tuple(m.name for m in MEASURES)
KNOWN_UNSUPPORTED = {
    "bpref", "iprec_at_recall", "relstring", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg",
    "binG", "G", "ndcg_rel", "Rndcg", "relative_P", "set_P", "set_relative_P", "set_recall", "set_map",
    "set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid", "ndcg_p", "dcg", "ideal_dcg",
}


def _parse_cutoffs(name: str, text: str) -> tuple[int, ...]:
    values: list[int] = []
    for part in text.split(","):
        try:
            value = int(float(part))
        except ValueError:
            raise InputError(f"bad cutoff {part!r} for measure {name}",
                             hint=f"e.g. {flag('measures', f'{name}.5,10', cli='-m')}") from None
        if value < 1:
            raise InputError(f"cutoffs of {name} must be positive, got {part!r}")
        values.append(value)
    if len(set(values)) != len(values):
        raise InputError(f"cutoffs of {name} must have no duplicates: {text!r}")
    return tuple(sorted(values))


def select(specs: list[str]) -> tuple[list[TrecMeasure], list[str]]:
    """Measures named by ``-m`` values (``official``, ``all_trec``, ``P``, ``P.5,10``), in trec_eval
    table order, and the names asked for that ragauge does not compute."""
    chosen: dict[str, TrecMeasure] = {}
    unsupported: list[str] = []
    for spec in specs or ["official"]:
        name, _, params = spec.partition(".")
        if name in ("official", "all_trec"):
            for m in OFFICIAL if name == "official" else ALL_TREC:
                chosen.setdefault(m, BY_NAME[m])
            if name == "official":
                unsupported += [u for u in OFFICIAL_UNSUPPORTED if u not in unsupported]
            continue
        if name not in BY_NAME:
            if name in KNOWN_UNSUPPORTED:
                unsupported.append(name)
                continue
            raise InputError(f"unknown trec_eval measure {name!r}",
                             hint=f"supported: official, all_trec, {', '.join(BY_NAME)}")
        base = BY_NAME[name]
        if params:
            if base.cutoffs is None:
                raise InputError(f"measure {name} takes no parameters here",
                                 hint=f"write {flag('measures', name, cli='-m')}")
            chosen[name] = TrecMeasure(name, base.kind, _parse_cutoffs(name, params), base.compute)
        else:
            chosen.setdefault(name, base)
    order = {m.name: i for i, m in enumerate(MEASURES)}
    return sorted(chosen.values(), key=lambda m: order[m.name]), unsupported
