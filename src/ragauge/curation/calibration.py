"""Calibrating an assessor's scores to grades on the human labels that exist.

**The rule.** The grades are the distinct human grades of the labelled pairs, g_0 < ... < g_{L-1}
(L >= 2). A calibration is L - 1 ascending cutoffs: a score s gets grade g_i when exactly i cutoffs
are <= s. The cutoffs are chosen to maximise the agreement with the human grades on the labelled
pairs, measured by linearly weighted Cohen's kappa (:func:`ragauge.stats.kappa.weighted_kappa`;
plain kappa for two grades), which, unlike the share of pairs graded alike, does not reward calling
every pair non-relevant when most are. Candidate cutoffs are the midpoints between consecutive
distinct scores (at most ``CANDIDATES`` of them, at evenly spaced quantiles beyond that). Two grades:
every candidate is tried. More: coordinate ascent from the cutoffs that reproduce the human grades'
shares, one cutoff at a time over the candidates between its neighbours, until no cutoff moves.
Ties in kappa go to the lowest cutoff (two grades) or keep the cutoff in place (more).

Fewer than two human grades among the labelled pairs (none labelled, or every one non-relevant):
nothing to fit, and the assessor's default mapping is used when it has one (``fitted_on`` 0); an
assessor without one is refused.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragauge.errors import InputError
from ragauge.formats.autolabels import Calibration

CANDIDATES = 2048
MAX_ROUNDS = 20


def _candidates(scores: np.ndarray) -> np.ndarray:
    values = np.unique(scores)
    if len(values) < 2:
        return np.zeros(0)
    mids = (values[1:] + values[:-1]) / 2.0
    if len(mids) > CANDIDATES:
        mids = np.unique(np.quantile(mids, np.linspace(0.0, 1.0, CANDIDATES), method="nearest"))
    return np.asarray(mids)


def _kappa(scores: np.ndarray, human: np.ndarray, cutoffs: Sequence[float], levels: np.ndarray) -> float:
    """:func:`ragauge.stats.kappa.weighted_kappa` of the human grades and the grades ``cutoffs`` give
    (-inf where it is undefined), from one confusion count: the fit calls it thousands of times."""
    size = len(levels)
    h = np.searchsorted(levels, human)
    p = np.searchsorted(np.asarray(cutoffs, dtype=np.float64), scores, side="right")
    observed = np.bincount(h * size + p, minlength=size * size).reshape(size, size) / len(scores)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    grid = np.arange(size)
    weights = np.abs(grid[:, None] - grid[None, :]) / (size - 1)
    chance = float((weights * expected).sum())
    return -np.inf if chance <= 0.0 else 1.0 - float((weights * observed).sum()) / chance


def fit_calibration(scores: Sequence[float], human: Sequence[float], default: Calibration | None = None,
                    *, who: str = "the assessor") -> Calibration:
    """The calibration of the rule (module docstring) for ``scores`` against the human grades
    ``human`` of the same pairs; ``default`` when there is nothing to fit."""
    s = np.asarray(scores, dtype=np.float64)
    h = np.asarray(human, dtype=np.float64)
    if len(s) != len(h):
        raise ValueError("one human grade per score")
    levels = np.unique(h)
    candidates = _candidates(s)
    if len(levels) < 2 or len(candidates) == 0:
        if default is not None:
            return default
        why = ("no pair in the runs' top k has a human label" if len(h) == 0 else
               f"the {len(h)} human-labelled pairs in the runs' top k all have grade {levels[0]:g}"
               if len(levels) < 2 else f"{who} gave all {len(s)} labelled pairs one score")
        raise InputError(f"cannot calibrate {who}'s scores to grades: {why}",
                         hint="label some questions whose top k holds relevant documents (golden pool and golden "
                              "judge), or use an assessor with a default grade scale (llm:URL)")
    if len(levels) == 2:
        kappas = [_kappa(s, h, [c], levels) for c in candidates]
        best = int(np.argmax(kappas))
        return Calibration((float(candidates[best]),), tuple(float(g) for g in levels), len(s), kappas[best])
    shares = np.cumsum([np.mean(h == g) for g in levels])[:-1]
    cutoffs = [float(candidates[np.argmin(np.abs(candidates - np.quantile(s, q)))]) for q in shares]
    cutoffs = sorted(cutoffs)
    current = _kappa(s, h, cutoffs, levels)
    for _ in range(MAX_ROUNDS):
        moved = False
        for i in range(len(cutoffs)):
            lo = cutoffs[i - 1] if i else -np.inf
            hi = cutoffs[i + 1] if i + 1 < len(cutoffs) else np.inf
            for c in candidates[(candidates >= lo) & (candidates <= hi)]:
                trial = [*cutoffs[:i], float(c), *cutoffs[i + 1:]]
                value = _kappa(s, h, trial, levels)
                if value > current + 1e-12:
                    cutoffs, current, moved = trial, value, True
        if not moved:
            break
    return Calibration(tuple(cutoffs), tuple(float(g) for g in levels), len(s), current)
