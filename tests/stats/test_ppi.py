"""Prediction-powered inference: the asymptotic interval held to the authors' package (ppi_py's
ppi_mean_ci and ppi_mean_pointestimate, PPI++ tuning included) on random data, and the finite-sample
betting interval checked for coverage on skewed, tied populations at small n."""

from __future__ import annotations

import numpy as np
import pytest

from ragauge.stats.ppi import power_tuning, ppi_difference, ppi_mean


def _data(seed: int, n: int, big: int, agreement: float = 0.8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-question metric values: a mass at 0, ties, skew; predictions that agree with chance
    ``agreement`` and are otherwise noise."""
    rng = np.random.default_rng(seed)
    total = n + big
    truth = np.where(rng.random(total) < 0.35, 0.0, np.round(rng.beta(2, 1, total), 2))
    noise = np.round(rng.random(total), 2)
    pred = np.where(rng.random(total) < agreement, np.clip(truth + rng.normal(0, 0.05, total), 0, 1), noise)
    return truth[:n], pred[:n], pred[n:]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("lam", [None, 0.0, 0.5, 1.0])
def test_the_clt_interval_is_ppi_pys(seed: int, lam: float | None) -> None:
    ppi_py = pytest.importorskip("ppi_py")
    y, yhat, u = _data(seed, n=20 + 10 * seed, big=300)
    ours = ppi_mean(y, yhat, u, alpha=0.1, method="clt", lam=lam)
    theirs = ppi_py.ppi_mean_ci(y, yhat, u, alpha=0.1, lam=lam)
    assert ours.interval == pytest.approx((float(theirs[0][0]), float(theirs[1][0])), rel=1e-9, abs=1e-12)
    point = ppi_py.ppi_mean_pointestimate(y, yhat, u, lam=lam)
    assert ours.estimate == pytest.approx(float(np.ravel(point)[0]), rel=1e-9, abs=1e-12)
    if lam is None:  # PPI++'s lambda: the one that reproduces their point estimate
        tuned = power_tuning(y, yhat, u)
        again = ppi_py.ppi_mean_pointestimate(y, yhat, u, lam=tuned)
        assert ours.lam == tuned and ours.estimate == pytest.approx(float(np.ravel(again)[0]))


@pytest.mark.parametrize("seed", range(4))
def test_the_paired_difference_is_ppi_pys_on_the_differences(seed: int) -> None:
    ppi_py = pytest.importorskip("ppi_py")
    ya, ha, ua = _data(seed, 40, 400)
    yb, hb, ub = _data(seed + 100, 40, 400)
    ours = ppi_difference(ya, yb, ha, hb, ua, ub, method="clt")
    theirs = ppi_py.ppi_mean_ci(ya - yb, ha - hb, ua - ub, alpha=0.05)
    assert ours.interval == pytest.approx((float(theirs[0][0]), float(theirs[1][0])), rel=1e-9)


def test_a_useless_assessor_costs_nothing_but_a_little_width_and_a_perfect_one_gains() -> None:
    y, _, _ = _data(1, 200, 2000)
    rng = np.random.default_rng(2)
    useless = ppi_mean(y, rng.random(200), rng.random(2000), method="clt")
    assert useless.lam < 0.1 and useless.width_ratio == pytest.approx(1.0, abs=0.06)
    truth = np.where(rng.random(2200) < 0.35, 0.0, rng.beta(2, 1, 2200))
    perfect = ppi_mean(truth[:200], truth[:200], truth[200:], method="betting")
    assert perfect.width_ratio < 0.85 and perfect.effective_n > 1000  # finite-sample validity costs width
    assert perfect.interval[0] <= perfect.estimate <= perfect.interval[1]


@pytest.mark.parametrize("n", [10, 30])
def test_the_betting_interval_covers_at_small_n(n: int) -> None:
    """Skewed values with a mass at 0 and an assessor of middling agreement: the betting interval
    covers the population mean in at least 95 % of 200 draws (Monte-Carlo s.e. 1.5 %)."""
    rng = np.random.default_rng(n)
    population = np.where(rng.random(20_000) < 0.4, 0.0, np.round(rng.beta(3, 1, 20_000), 2))
    assessor = np.where(rng.random(20_000) < 0.6, population, np.round(rng.random(20_000), 2))
    mean = population.mean()
    covered = 0
    for _ in range(200):
        pick = rng.choice(20_000, size=n + 300, replace=False)
        lab, unl = pick[:n], pick[n:]
        ci = ppi_mean(population[lab], assessor[lab], assessor[unl]).interval
        covered += ci[0] <= mean <= ci[1]
    assert covered >= 0.95 * 200 - 3 * np.sqrt(0.95 * 0.05 * 200)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="one each per question"):
        ppi_mean(np.ones(3), np.ones(2), np.ones(5))
    with pytest.raises(ValueError, match="at least 2 labelled"):
        ppi_mean(np.ones(1), np.ones(1), np.ones(5))
    with pytest.raises(ValueError, match="finite"):
        ppi_mean(np.array([0.1, np.nan]), np.ones(2), np.ones(5))
    with pytest.raises(ValueError, match="unknown PPI method"):
        ppi_mean(np.ones(3), np.ones(3), np.ones(5), method="bootstrap")
