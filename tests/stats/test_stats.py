"""Statistics verified by simulation: interval coverage near 95%, false-positive rate near alpha."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.stats.bootstrap import bootstrap_ci, bootstrap_means
from ragauge.stats.randomization import holm, sign_flip_p_value


def test_bootstrap_interval_covers_the_true_mean_about_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(7)
    trials, n, true_mean = 400, 200, 0.03
    covered = 0
    for i in range(trials):
        diffs = rng.normal(true_mean, 0.25, size=n)
        lo, hi = bootstrap_ci(diffs, resamples=2000, seed=i)
        covered += lo <= true_mean <= hi
    assert 0.91 <= covered / trials <= 0.98  # binomial sd ~1.1% around 0.95 (percentile CI runs slightly low)


def test_bootstrap_interval_coverage_for_binary_paired_differences() -> None:
    rng = np.random.default_rng(11)
    trials, n = 400, 300
    p_better, p_worse = 0.10, 0.06
    true_mean = p_better - p_worse
    covered = 0
    for i in range(trials):
        u = rng.random(n)
        diffs = np.where(u < p_better, 1.0, np.where(u < p_better + p_worse, -1.0, 0.0))
        lo, hi = bootstrap_ci(diffs, resamples=2000, seed=i)
        covered += lo <= true_mean <= hi
    assert 0.91 <= covered / trials <= 0.98


def test_randomization_false_positive_rate_is_near_alpha() -> None:
    rng = np.random.default_rng(3)
    trials, alpha = 500, 0.05
    rejections = sum(sign_flip_p_value(rng.normal(0, 0.3, 100) * rng.choice([-1, 1], 100), 1000, seed=i) < alpha
                     for i in range(trials))
    assert 0.025 <= rejections / trials <= 0.08


def test_randomization_detects_a_real_effect() -> None:
    rng = np.random.default_rng(5)
    assert sign_flip_p_value(rng.normal(0.1, 0.2, 200), 2000) < 0.01


def test_exact_small_case() -> None:
    # diffs (1, 1, 1): of the 8 sign patterns, 2 reach |sum| = 3 -> p ~ 2/8
    p = sign_flip_p_value(np.array([1.0, 1.0, 1.0]), permutations=20_000, seed=1)
    assert p == pytest.approx(0.25, abs=0.015)


def test_no_difference_gives_p_one_and_degenerate_interval() -> None:
    assert sign_flip_p_value(np.zeros(10)) == 1.0
    assert bootstrap_ci(np.zeros(10)) == (0.0, 0.0)


def test_seeded_and_reproducible() -> None:
    x = np.random.default_rng(1).normal(size=500)
    assert bootstrap_ci(x, seed=4) == bootstrap_ci(x, seed=4)
    assert sign_flip_p_value(x, seed=4) == sign_flip_p_value(x, seed=4)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=300))
def test_bootstrap_means_stay_within_the_data(values: list[float]) -> None:
    means = bootstrap_means(np.array(values), resamples=200, seed=0)
    assert means.min() >= min(values) - 1e-9 and means.max() <= max(values) + 1e-9


@settings(max_examples=100)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=20))
def test_holm_is_monotone_bounded_and_at_least_raw(ps: list[float]) -> None:
    adj = holm(ps)
    assert all(a >= p - 1e-15 and a <= 1.0 for a, p in zip(adj, ps))
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    assert all(adj[order[i]] <= adj[order[i + 1]] + 1e-15 for i in range(len(ps) - 1))


def test_holm_known_values() -> None:
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
