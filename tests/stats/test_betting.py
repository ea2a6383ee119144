"""The betting interval and test (stats.betting): confseq's capitals, inversion, never a point."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.stats import betting

REFERENCE = Path(__file__).resolve().parent.parent / "fixtures" / "confseq" / "betting_mart.json"


def test_one_order_reproduces_confseqs_capital(monkeypatch: pytest.MonkeyPatch) -> None:
    """With one order and confseq's truncation (1/2), the capital is confseq's betting_mart."""
    monkeypatch.setattr(betting, "TRUNCATION", 0.5)
    cases = json.loads(REFERENCE.read_text())["cases"]
    assert len(cases) == 20
    for case in cases:
        b = betting.bets_in_order((np.array(case["differences"]) + 1) / 2, case["alpha_per_side"])
        assert betting.log_capital(b, case["m"], True) == pytest.approx(case["log_capital_up"], abs=1e-9)
        assert betting.log_capital(b, case["m"], False) == pytest.approx(case["log_capital_down"], abs=1e-9)


def test_the_interval_depends_on_the_values_not_their_order() -> None:
    rng = np.random.default_rng(3)
    d = np.where(rng.random(80) < 0.8, 0.0, rng.uniform(-0.5, 0.9, 80))
    assert betting.interval(d, -1, 1) == betting.interval(d[::-1].copy(), -1, 1)
    assert betting.interval(d, -1, 1) == betting.interval(np.sort(d), -1, 1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([-1.0, -0.5, -0.2, 0.0, 0.0, 0.0, 0.1, 0.3, 1.0]), min_size=2, max_size=40))
def test_swapping_base_and_new_mirrors_the_interval_and_keeps_the_p_value(d: list[float]) -> None:
    """One fixed set of orders read sorted values from one end only: swapping the two sides of a
    comparison moved the interval and p (SciFact hit@10: p 0.0155 one way, 0.0153 the other)."""
    x = np.array(d)
    low, high = betting.interval(x, -1.0, 1.0)
    assert betting.interval(-x, -1.0, 1.0) == pytest.approx((-high, -low), abs=1e-9)
    assert betting.p_value(-x, -1.0, 1.0, 0.0, 0.05) == pytest.approx(betting.p_value(x, -1.0, 1.0, 0.0, 0.05),
                                                                        rel=1e-9, abs=1e-12)
    assert betting.p_value(-x, -1.0, 1.0, 0.0, 0.05, "less") == pytest.approx(
        betting.p_value(x, -1.0, 1.0, 0.0, 0.05, "greater"), rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([-1.0, -0.5, -0.1, 0.0, 0.0, 0.0, 0.2, 0.5, 1.0]), min_size=1, max_size=60),
       st.sampled_from([0.9, 0.95]))
def test_the_interval_excludes_a_value_exactly_when_its_p_is_below_alpha(d: list[float], confidence: float) -> None:
    values = np.array(d)
    lo, hi = betting.interval(values, -1.0, 1.0, confidence)
    assert lo < hi  # never a single point
    alpha = 1.0 - confidence
    for null in (0.0, lo - 1e-6, hi + 1e-6, (lo + hi) / 2):
        if -1.0 <= null <= 1.0:
            p = betting.p_value(values, -1.0, 1.0, null, alpha)
            assert (p < alpha) == (not lo <= null <= hi), (null, p, lo, hi)


def test_the_one_sided_bounds_agree_with_the_one_sided_p() -> None:
    rng = np.random.default_rng(4)
    d = np.clip(rng.normal(0.05, 0.2, 50), -1, 1)
    low = betting.lower_bound(d, -1, 1, 0.05)
    assert betting.p_value(d, -1, 1, low - 1e-6, 0.05, "greater") < 0.05
    assert betting.p_value(d, -1, 1, low + 1e-6, 0.05, "greater") >= 0.05
    high = betting.upper_bound(d, -1, 1, 0.05)
    assert betting.p_value(d, -1, 1, high + 1e-6, 0.05, "less") < 0.05 <= betting.p_value(d, -1, 1, high - 1e-6, 0.05,
                                                                                           "less")
    assert betting.interval(d, -1, 1)[0] < low < high < betting.interval(d, -1, 1)[1]


@pytest.mark.parametrize(("n", "half"), [(20, 0.2167), (100, 0.0488), (300, 0.0166)])
def test_no_change_seen_is_not_no_change(n: int, half: float) -> None:
    """n tied questions: the interval spans what the questions not asked could do."""
    lo, hi = betting.interval(np.zeros(n), -1.0, 1.0)
    assert (lo, hi) == pytest.approx((-half, half), abs=1e-4)
    assert betting.p_value(np.zeros(n), -1.0, 1.0, 0.0, 0.05) == 1.0


def test_batch_capital_is_the_capital_of_each_row() -> None:
    rng = np.random.default_rng(5)
    x = np.clip(rng.normal(0.1, 0.3, (7, 33)), -1, 1)
    got = betting.batch_log_capital(x, -1, 1, 0.0, 0.025, False)
    want = [betting.log_capital(betting.bets(r, -1, 1, 0.025), 0.5, False) for r in x]
    assert got == pytest.approx(want, abs=1e-12)


def test_empty_and_extreme_values() -> None:
    assert betting.interval(np.zeros(0), -1, 1) == (-1, 1)
    assert betting.p_value(np.zeros(0), -1, 1, 0.0, 0.05) == 1.0
    lo, hi = betting.interval(np.ones(30), -1, 1)
    assert hi == 1.0 and lo > 0.5 and math.isfinite(lo)
    assert betting.p_value(np.ones(30), -1, 1, 0.0, 0.05) < 1e-6
