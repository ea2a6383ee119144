"""The paired test (betting), power by simulation and Holm: contracts, and calibration by simulation
(coverage, type-I error, power) on realistic populations, with Monte-Carlo errors in mind.

The full grid (n from 10 to 300, every population, SciFact's real pairs) is
``benchmarks/bench_stats.py``; these are its fast cells."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.stats.holm import holm
from ragauge.stats.mean import mean_interval
from ragauge.stats.paired import METHOD, one_sided_bound, one_sided_p, paired_test
from ragauge.stats.power import (
    Differences,
    min_questions,
    minimum_detectable_effect,
    noise_allowance,
    noise_exceedance,
    power_at,
    questions_for_allowance,
    required_questions,
)
from tests.stats.populations import draws, exchangeable, population

EXPERIMENTS = 1000  # Monte-Carlo sd of a 95% coverage: 0.69 points; of a 5% rate: 0.69 points


def _se(p: float, n: int = EXPERIMENTS) -> float:
    return math.sqrt(p * (1 - p) / n)


@settings(max_examples=80, deadline=None)
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
    assert test.method == METHOD and lo < hi  # never a zero-width interval
    if min(abs(lo), abs(hi)) > 1e-9:
        assert (lo > 0 or hi < 0) == (test.p_value < 0.05), test


def test_one_sided_p_agrees_with_the_one_sided_bounds() -> None:
    rng = np.random.default_rng(4)
    b = rng.random(30)
    n = np.clip(b + rng.normal(0.1, 0.15, 30), 0, 1)
    test = paired_test(b, n)
    low = one_sided_bound(test, "lower", 0.05)
    assert one_sided_p(test, low - 1e-6, "greater", 0.05) < 0.05 <= one_sided_p(test, low + 1e-6, "greater", 0.05)
    high = one_sided_bound(test, "upper", 0.05)
    assert one_sided_p(test, high + 1e-6, "less", 0.05) < 0.05 <= one_sided_p(test, high - 1e-6, "less", 0.05)


def test_degenerate_cases() -> None:
    assert paired_test(np.zeros(0), np.zeros(0)).n == 0
    one = paired_test(np.array([0.2]), np.array([0.9]))
    assert one.p_value == 1.0 and one.ci[0] < 0 < one.ci[1]
    same = paired_test(np.full(20, 0.5), np.full(20, 0.5))
    assert same.p_value == 1.0 and same.tied == 20
    assert same.ci[0] < -0.2 and same.ci[1] > 0.2  # 20 unchanged questions do not show that nothing changes
    noise = paired_test(np.full(4, 0.5), np.full(4, 0.5) + 1e-13)  # rounding noise is no change
    assert noise.tied == 4 and noise.p_value == 1.0
    five = paired_test(np.full(5, 0.25), np.full(5, 0.5))  # five questions up by 0.25: too few to tell
    assert five.p_value > 0.05 and five.ci[0] < 0 < five.ci[1]
    many = paired_test(np.full(40, 0.25), np.full(40, 0.5))
    assert many.p_value < 0.01 and many.ci[0] > 0.05


@pytest.mark.parametrize("kind", ["recall@5", "rr", "ndcg", "skewed rr", "hit", "rare changes"])
@pytest.mark.parametrize("size", [10, 20, 50])
def test_coverage_is_at_least_93_5_in_every_cell(kind: str, size: int) -> None:
    b, n = population(kind)
    truth = float((n - b).mean())
    covered = sum(lo <= truth <= hi for lo, hi in (paired_test(x, y).ci for x, y in draws(b, n, size, 400)))
    assert covered / 400 >= 0.935, covered / 400


@pytest.mark.parametrize("kind", ["recall@5", "ndcg", "hit", "skewed null"])
@pytest.mark.parametrize("size", [20, 50])
def test_type_one_error_is_at_most_5_percent(kind: str, size: int) -> None:
    b, n = exchangeable(kind) if kind != "skewed null" else population(kind)
    rejected = sum(paired_test(x, y).p_value < 0.05 for x, y in draws(b, n, size, 400))
    assert rejected / 400 <= 0.05 + 2 * _se(0.05, 400), rejected / 400


def test_the_non_inferiority_test_does_not_pass_a_run_worse_by_the_margin() -> None:
    """Rare changes, truly worse by exactly the margin: "shown no worse" at most 5 % (+2 s.e.)."""
    b, n = population("rare changes")
    d = n - b
    margin = 0.02
    shifted = np.clip(b + (d - d.mean()) - margin, -1, 2)  # the change, moved to a mean of -margin
    passed = sum(one_sided_p(paired_test(x, y), -margin, "greater", 0.05) < 0.05
                 for x, y in draws(b, shifted, 20, 400))
    assert passed / 400 <= 0.05 + 2 * _se(0.05, 400)


@pytest.mark.parametrize(("kind", "size"), [("hit", 30), ("hit", 50), ("ndcg", 50)])
def test_the_power_printed_is_the_power_simulated(kind: str, size: int) -> None:
    """The MDE from the observed differences: the test run on fresh samples of that size, from the
    population tilted to that effect, finds it 80 % of the time (± 5 points)."""
    b, n = population(kind)
    d = (n - b)[:4000]
    model = Differences.observed(d)
    mde = minimum_detectable_effect(model, size)
    assert mde is not None
    w = np.exp(_eta(d, mde) * d)
    w /= w.sum()
    rng = np.random.default_rng(77)
    found = np.mean([paired_test(np.zeros(size), d[rng.choice(len(d), size, p=w)]).p_value < 0.05
                     for _ in range(300)])
    assert abs(found - 0.80) <= 0.05 + 2 * _se(0.8, 300), (found, mde)


def _eta(d: np.ndarray, target: float) -> float:
    lo, hi = -50.0, 50.0
    for _ in range(100):
        mid = (lo + hi) / 2
        w = np.exp(mid * (d - d.max()))
        if (w * d).sum() / w.sum() < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def test_power_grows_with_the_effect_and_the_questions() -> None:
    model = Differences.observed(np.r_[np.full(40, 0.3), np.full(40, -0.3), np.zeros(320)])
    assert power_at(model, 100, 0.01) < power_at(model, 100, 0.05) < power_at(model, 400, 0.05)
    needed = required_questions(model, 0.05)
    assert needed is not None and power_at(model, needed, 0.05) >= 0.8
    assert required_questions(model, 0.0) is None
    assert minimum_detectable_effect(Differences.observed(np.zeros(10)), 10) is None  # nothing can change


def test_one_question_in_n_is_the_floor_when_nothing_varies() -> None:
    model = Differences.best(50, np.zeros(50), np.ones(50))
    assert model.sd > 0 and "one question in 50" in model.source and model.floor
    assert Differences.best(50, None, np.r_[np.ones(25), np.zeros(25)]).source.startswith("one run")


def test_alpha_outside_0_1_is_refused() -> None:
    with pytest.raises(ValueError):
        min_questions(0.0)


def test_noise_allowance_inverts_the_false_alarm_rate() -> None:
    model = Differences.observed(np.random.default_rng(1).normal(0, 0.4, 3000).clip(-1, 1))
    allowed = noise_allowance(model, 30)
    assert noise_exceedance(allowed, model, 30) <= 0.05 + 1e-9
    assert noise_exceedance(allowed * 0.8, model, 30) > 0.05
    n = questions_for_allowance(0.05, model, 30)
    assert n is not None and n > 30 and noise_exceedance(0.05, model, n) <= 0.05


def test_questions_for_allowance_grows_the_set_on_the_model_that_flagged_it() -> None:
    """Where questions rarely move (one 0 in 24 values of 1, or none: the floor) 2 questions exceed a small
    allowance less often than 24 do, and the gate asked for 2. Now: more than n, and enough by the same model."""
    for values in (np.r_[np.ones(23), 0.0], np.ones(24)):
        model = Differences.best(24, None, values)
        assert noise_exceedance(0.02, model, 24) > 0.05
        needed = questions_for_allowance(0.02, model, 24)
        assert needed is not None and needed > 24 and noise_exceedance(0.02, model, needed) <= 0.05
    assert questions_for_allowance(0.02, Differences.observed(np.zeros(24)), 24) == 24  # nothing moves: n is enough
    steady = Differences.observed(np.full(24, -0.5))  # sd 0, yet every question moves (it was answered 2)
    assert steady.sd == 0 and (questions_for_allowance(0.1, steady, 24) or 0) > 24
    assert questions_for_allowance(0.0, Differences.best(24, None, np.ones(24)), 24) is None  # no size is enough


def test_betting_intervals_for_one_mean() -> None:
    lo, hi = mean_interval(np.array([0.0, 0.0]))
    assert lo == 0.0 and hi > 0.5  # two misses do not prove a rate of 0
    assert math.isnan(mean_interval(np.array([0.3]))[0])
    lo, hi = mean_interval(np.full(30, 0.63))
    assert lo < 0.63 < hi and hi - lo < 0.4
    values = np.random.default_rng(3).random(200)
    lo, hi = mean_interval(values)
    assert 0 <= lo < values.mean() < hi <= 1


def test_a_count_s_interval_is_the_share_s_scaled_to_its_bound() -> None:
    counts = np.random.default_rng(4).integers(1, 6, 40).astype(float)  # calls made: 1 to 5
    lo, hi = mean_interval(counts, high=5.0)
    assert lo < counts.mean() < hi <= 5.0 and hi > 1.0  # on [0, 1] it would be clipped below 1
    assert (lo, hi) == pytest.approx(tuple(5.0 * x for x in mean_interval(counts / 5.0)))


@settings(max_examples=100)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=20))
def test_holm_is_monotone_bounded_and_at_least_raw(ps: list[float]) -> None:
    adj = holm(ps)
    assert all(a >= p - 1e-15 and a <= 1.0 for a, p in zip(adj, ps))
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    assert all(adj[order[i]] <= adj[order[i + 1]] + 1e-15 for i in range(len(ps) - 1))


def test_holm_known_values() -> None:
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])


def test_a_missing_value_is_refused_not_turned_into_p_1() -> None:
    """A NaN difference turned the interval inside out and p into 1, in silence (found by a review)."""
    from ragauge.errors import InputError

    with pytest.raises(InputError, match="1 value"):
        paired_test(np.array([0.5, float("nan"), 0.2]), np.array([0.5, 0.4, 0.3]))
    lo, hi = mean_interval(np.array([0.5, float("nan"), 0.2, 0.7]))
    assert 0 <= lo < hi <= 1


def test_power_when_every_change_is_a_drop() -> None:
    """With drops only the MDE was 'none' and the tag listed as blind beside 'worse (significant)'."""
    drops = Differences.observed(np.r_[np.full(30, -0.5), np.zeros(470)])
    gains = Differences.observed(np.r_[np.full(30, 0.5), np.zeros(470)])
    assert minimum_detectable_effect(drops, 500) == minimum_detectable_effect(gains, 500) is not None
