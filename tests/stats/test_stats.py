"""The paired tests and intervals: reference values, agreement by construction, and calibration by
simulation (coverage, type-I error) on realistic populations, with Monte-Carlo errors in mind."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from ragauge.stats.holm import holm
from ragauge.stats.mean import mean_interval
from ragauge.stats.paired import PROPORTIONS_METHOD, T_METHOD, one_sided_p, paired_test, tango_interval
from ragauge.stats.power import (
    min_questions,
    minimum_detectable_effect,
    noise_allowance,
    noise_exceedance,
    one_sided_power,
    questions_for_allowance,
    required_questions,
)
from tests.stats.populations import draws, exchangeable, population

EXPERIMENTS = 2000  # Monte-Carlo sd of a 95% coverage: 0.49 points; of a 5% rate: 0.49 points


def test_tango_interval_matches_the_published_example() -> None:
    # Cavo et al. (2012) via Fagerland, Lydersen & Laake's contingencytables: 6 vs 16 discordant of 161
    lo, hi = tango_interval(6, 16, 161, 0.95)
    assert (round(lo, 4), round(hi, 4)) == (-0.1240, -0.0054)


def test_mcnemar_p_is_the_score_test_and_agrees_with_tango() -> None:
    base = np.array([1.0] * 16 + [0.0] * 6 + [1.0] * 59 + [0.0] * 80)
    new = np.array([0.0] * 16 + [1.0] * 6 + [1.0] * 59 + [0.0] * 80)
    test = paired_test(base, new)
    assert test.method == PROPORTIONS_METHOD and (test.better, test.worse, test.tied) == (6, 16, 139)
    assert test.p_value == pytest.approx(2 * sps.norm.sf(10 / math.sqrt(22)), rel=1e-12)
    assert test.ci == pytest.approx(tango_interval(6, 16, 161, 0.95))


def test_paired_t_matches_scipy() -> None:
    rng = np.random.default_rng(2)
    b = rng.random(40)
    n = np.clip(b + rng.normal(0.05, 0.2, 40), 0, 1)
    test = paired_test(b, n)
    ref = sps.ttest_rel(n, b)
    assert test.method == T_METHOD
    assert test.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert test.ci == pytest.approx(tuple(ref.confidence_interval(0.95)), rel=1e-10)
    assert one_sided_p(test, 0.0, "greater") == pytest.approx(sps.ttest_rel(n, b, alternative="greater").pvalue)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.sampled_from([0.0, 0.5, 1.0])),
                min_size=2, max_size=60),
       st.booleans())
def test_the_interval_excludes_zero_exactly_when_p_is_below_alpha(pairs: list[tuple[float, float]],
                                                                  binary: bool) -> None:
    b = np.array([p[0] for p in pairs])
    n = np.array([p[1] for p in pairs])
    if binary:
        b, n = np.round(b), np.round(n)
    test = paired_test(b, n)
    lo, hi = test.ci
    excludes = lo > 1e-9 or hi < -1e-9
    if abs(test.p_value - 0.05) > 1e-6 and min(abs(lo), abs(hi)) > 1e-9:  # not on the boundary itself
        assert excludes == (test.p_value < 0.05), test


def test_one_sided_p_agrees_with_the_interval_ends() -> None:
    rng = np.random.default_rng(4)
    b = rng.random(30)
    n = np.clip(b + rng.normal(0.02, 0.15, 30), 0, 1)
    test = paired_test(b, n, confidence=0.90)
    assert one_sided_p(test, test.ci[0], "greater") == pytest.approx(0.05, abs=1e-9)
    hits = (rng.random(50) < 0.6).astype(float)
    flips = np.where(rng.random(50) < 0.2, 1 - hits, hits)
    test = paired_test(hits, flips, confidence=0.90)
    assert one_sided_p(test, test.ci[1], "less") == pytest.approx(0.05, abs=1e-6)


def test_degenerate_cases() -> None:
    assert paired_test(np.zeros(0), np.zeros(0)).n == 0
    one = paired_test(np.array([0.2]), np.array([0.9]))
    assert one.p_value == 1.0 and math.isnan(one.ci[0])
    same = paired_test(np.full(10, 0.5), np.full(10, 0.5))
    assert same.p_value == 1.0 and same.ci == (0.0, 0.0) and same.tied == 10
    # every question up by the same amount: no variance for t, so the exact sign-flip test decides
    shifted = paired_test(np.full(10, 0.25), np.full(10, 0.5))
    assert shifted.p_value == pytest.approx(2 / 1024) and shifted.ci == (0.25, 0.25)
    five = paired_test(np.full(5, 0.25), np.full(5, 0.5))  # 2 * 0.5**5 > 0.05: nothing can be ruled out
    assert five.p_value == pytest.approx(1 / 16) and five.ci == (-1.0, 1.0)
    assert one_sided_p(five, 0.0, "greater") == pytest.approx(1 / 32) and one_sided_p(five, 0.0, "less") == 1.0
    noise = paired_test(np.full(4, 0.5), np.full(4, 0.5) + 1e-13)  # rounding noise is no change
    assert noise.tied == 4 and noise.p_value == 1.0 and noise.ci[0] <= 0.0 <= noise.ci[1]
    same_graded = paired_test(np.full(3, 0.5), np.full(3, 0.5))
    assert one_sided_p(same_graded, -0.02, "greater") == 0.125  # 3 unchanged questions show nothing
    no_change = paired_test(np.ones(20), np.ones(20))  # 0/1: nothing changed, yet not everything is known
    assert no_change.p_value == 1.0 and no_change.ci[0] < -0.1 and no_change.ci[1] > 0.1


def test_wilson_and_t_intervals_for_one_mean() -> None:
    assert mean_interval(np.array([1.0, 0.0, 0.0])) == pytest.approx((0.0615, 0.7923), abs=1e-4)
    lo, hi = mean_interval(np.array([0.0, 0.0]))
    assert lo == 0.0 and hi == pytest.approx(0.6576, abs=1e-4)  # two misses do not prove a rate of 0
    values = np.array([0.2, 0.5, 0.7, 0.9])
    ref = sps.t.interval(0.95, 3, loc=values.mean(), scale=sps.sem(values))
    assert mean_interval(values) == pytest.approx((max(0, ref[0]), min(1, ref[1])))
    assert math.isnan(mean_interval(np.array([0.3]))[0])
    assert mean_interval(np.array([0.63, 0.63])) == (0.0, 1.0)  # two equal values do not pin the mean
    assert mean_interval(np.full(6, 0.63)) == (0.63, 0.63)


@pytest.mark.parametrize("kind", ["recall@5", "rr", "ndcg"])
@pytest.mark.parametrize("size", [20, 30, 50])
def test_coverage_of_continuous_metrics_is_95_within_1_5_points(kind: str, size: int) -> None:
    b, n = population(kind)
    truth = float((n - b).mean())
    covered = 0
    for x, y in draws(b, n, size, EXPERIMENTS):
        lo, hi = paired_test(x, y).ci
        covered += lo <= truth <= hi
    assert abs(covered / EXPERIMENTS - 0.95) <= 0.015, covered / EXPERIMENTS


@pytest.mark.parametrize("kind", ["recall@5", "rr", "ndcg"])
@pytest.mark.parametrize("size", [30, 50])
def test_type_one_error_of_continuous_metrics_is_5_within_1_5_points(kind: str, size: int) -> None:
    b, n = exchangeable(kind)
    rejected = sum(paired_test(x, y).p_value < 0.05 for x, y in draws(b, n, size, EXPERIMENTS))
    assert abs(rejected / EXPERIMENTS - 0.05) <= 0.015, rejected / EXPERIMENTS


@pytest.mark.parametrize("size", [20, 50, 100])
def test_binary_interval_is_valid_at_small_n(size: int) -> None:
    """Few discordant questions: Tango's interval keeps at least nominal coverage (a percentile
    bootstrap covered 44-69% here) and its test does not reject more often than alpha."""
    b, n = population("hit")
    truth = float((n - b).mean())
    runs = draws(b, n, size, 1000)
    coverage = np.mean([paired_test(x, y).ci[0] <= truth <= paired_test(x, y).ci[1] for x, y in runs])
    assert coverage >= 0.935, coverage
    nb, nn = exchangeable("hit")
    rejected = np.mean([paired_test(x, y).p_value < 0.05 for x, y in draws(nb, nn, size, 1000)])
    assert rejected <= 0.065, rejected


@pytest.mark.parametrize("kind", ["recall@5", "rr"])
def test_the_minimum_detectable_effect_is_found_80_percent_of_the_time(kind: str) -> None:
    """Shift the population's differences so their mean is the MDE for 50 questions: the test
    must find it in 80% of experiments (Monte-Carlo sd 0.9 points at 2000)."""
    b, n = population(kind)
    d = n - b
    mde = minimum_detectable_effect(float(d.std()), 50)
    assert mde is not None
    shifted = d - d.mean() + mde
    zeros = np.zeros(len(d))
    found = np.mean([paired_test(x, y).p_value < 0.05 for x, y in draws(zeros, shifted, 50, EXPERIMENTS)])
    assert abs(found - 0.80) <= 0.03, found


def test_one_sided_power_matches_a_simulation() -> None:
    rng = np.random.default_rng(9)
    sd, n, shift = 0.3, 60, 0.08
    chance = one_sided_power(shift, sd, n)
    hits = np.mean([one_sided_p(paired_test(np.zeros(n), rng.normal(shift, sd, n)), 0.0, "greater") < 0.05
                    for _ in range(EXPERIMENTS)])
    assert abs(hits - chance) <= 0.03, (hits, chance)
    assert one_sided_power(shift, sd, 5) == 0.0


def test_alpha_outside_0_1_is_refused() -> None:
    with pytest.raises(ValueError):
        min_questions(0.0)


def test_required_questions_is_the_inverse_of_the_mde() -> None:
    needed = required_questions(0.3, 0.05)
    assert needed is not None
    assert minimum_detectable_effect(0.3, needed) <= 0.05 < minimum_detectable_effect(0.3, needed - 1)
    assert minimum_detectable_effect(0.3, 5) is None  # fewer than 6 questions: nothing is detectable
    assert required_questions(0.3, 0.0) is None


def test_noise_allowance_inverts_the_false_alarm_rate() -> None:
    allowed = noise_allowance(0.4, 30)
    assert noise_exceedance(allowed, 0.4, 30) == pytest.approx(0.05)
    n = questions_for_allowance(0.02, 0.4)
    assert n is not None and noise_exceedance(0.02, 0.4, n) <= 0.05 < noise_exceedance(0.02, 0.4, n - 1)


@settings(max_examples=100)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=20))
def test_holm_is_monotone_bounded_and_at_least_raw(ps: list[float]) -> None:
    adj = holm(ps)
    assert all(a >= p - 1e-15 and a <= 1.0 for a, p in zip(adj, ps))
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    assert all(adj[order[i]] <= adj[order[i + 1]] + 1e-15 for i in range(len(ps) - 1))


def test_holm_known_values() -> None:
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
