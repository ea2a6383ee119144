"""Realistic per-question populations of two runs (base, new) for simulating the paired tests.

Each population is 200,000 questions with a shared difficulty, so the two runs correlate per
question as real retrievers do; an experiment draws n questions from it, and the population's
mean difference is the truth an interval should cover. ``exchangeable`` swaps base and new at
random per question: a change of equal quality (the null of the tests).
"""

from __future__ import annotations

import numpy as np

KINDS = ("recall@5", "rr", "ndcg", "skewed rr", "hit", "rare changes", "skewed null")
SIZE = 200_000


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-x)))


def population(kind: str, seed: int = 1, shift: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.normal(0, 1.2, SIZE)  # question difficulty, shared by both runs
    if kind == "hit":  # strongly correlated 0/1 values, p ~ 0.6, few discordant questions
        b = (_sigmoid(1.5 * a + 0.45 + rng.normal(0, 0.35, SIZE)) > 0.5).astype(float)
        n = (_sigmoid(1.5 * a + 0.45 + shift * 0.3 + rng.normal(0, 0.35, SIZE)) > 0.5).astype(float)
    elif kind == "recall@5":  # 1-4 relevant documents: many 0s and 1s
        r = rng.integers(1, 5, SIZE)
        mask = np.arange(4)[None, :] < r[:, None]
        pb = _sigmoid(a + 0.3)[:, None]
        pn = _sigmoid(a + 0.3 + shift + rng.normal(0, 0.6, SIZE))[:, None]
        b = ((rng.random((SIZE, 4)) < pb) & mask).sum(1) / r
        n = ((rng.random((SIZE, 4)) < pn) & mask).sum(1) / r
    elif kind == "rr":  # reciprocal rank, 0 beyond rank 10
        rb = rng.geometric(_sigmoid(a + 0.2))
        rn = rng.geometric(_sigmoid(a + 0.2 + shift + rng.normal(0, 0.6, SIZE)))
        b, n = np.where(rb <= 10, 1.0 / rb, 0.0), np.where(rn <= 10, 1.0 / rn, 0.0)
    elif kind == "ndcg":  # a point mass at 0 (questions neither run answers)
        zero = rng.random(SIZE) < _sigmoid(-a - 0.3)
        b = np.where(zero | (rng.random(SIZE) < 0.1), 0.0, _sigmoid(a + rng.normal(0, 0.7, SIZE)))
        n = np.where(zero | (rng.random(SIZE) < 0.1), 0.0, _sigmoid(a + shift + rng.normal(0, 0.7, SIZE)))
    elif kind == "skewed rr":  # a reranker: many small gains, a few large losses
        rb = rng.geometric(_sigmoid(a + 0.2))
        b = np.where(rb <= 10, 1.0 / rb, 0.0)
        rn = np.where(rng.random(SIZE) < 0.5, np.maximum(1, rb - 1), rb)
        n = np.where(rng.random(SIZE) < 0.06, 0.0, np.where(rn <= 10, 1.0 / rn, 0.0))
    elif kind == "rare changes":  # most questions tied; 6 % move by 0.3-0.7, mostly up
        b = _sigmoid(a + rng.normal(0, 0.7, SIZE))
        move = rng.random(SIZE) < 0.06
        step = rng.uniform(0.3, 0.7, SIZE) * np.where(rng.random(SIZE) < 0.7, 1.0, -1.0)
        n = np.clip(np.where(move, b + step, b), 0.0, 1.0)
    elif kind == "skewed null":  # mean difference exactly 0, but many small gains and rare large losses
        b = _sigmoid(a + rng.normal(0, 0.7, SIZE))
        loss = rng.random(SIZE) < 0.05
        d = np.where(loss, -0.6, 0.0)
        d = np.where(~loss & (rng.random(SIZE) < 0.6), 0.05, d)
        d = d - d.mean() * (d > 0) / max(float((d > 0).mean()), 1e-12)  # shift the gains: mean 0 exactly
        n = b + d
        lo, hi = np.minimum(b, n).min(), np.maximum(b, n).max()
        b, n = (b - lo) / (hi - lo), (n - lo) / (hi - lo)
    else:
        raise ValueError(kind)
    return b, n


def exchangeable(kind: str, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    b, n = population(kind, seed)
    swap = np.random.default_rng(seed + 99).random(SIZE) < 0.5
    return np.where(swap, n, b), np.where(swap, b, n)


def draws(b: np.ndarray, n: np.ndarray, size: int, experiments: int,
          seed: int = 7) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(b), (experiments, size))
    return [(b[i], n[i]) for i in idx]
