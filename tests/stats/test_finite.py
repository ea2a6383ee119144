"""The mean of a finite population by betting without replacement (stats.finite): confseq's capitals,
coverage on skewed and tied populations at small n with good, useless and adversarial control variates,
what the members already seen settle, and the golden-set target of stats.ppi built on it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from ragauge.stats import betting, finite
from ragauge.stats.ppi import power_tuning, ppi_mean

REFERENCE = Path(__file__).resolve().parent.parent / "fixtures" / "confseq" / "betting_mart_wor.json"


def test_one_order_reproduces_confseqs_capital_without_replacement(monkeypatch: pytest.MonkeyPatch) -> None:
    """With one order, no control variate and confseq's truncation (1/2): confseq's betting_mart(N=N)."""
    monkeypatch.setattr(betting, "TRUNCATION", 0.5)
    cases = json.loads(REFERENCE.read_text())["cases"]
    assert len(cases) == 20
    for case in cases:
        y = (np.array(case["differences"]) + 1) / 2
        capital = finite.log_capital_of(y, case["population"], 0.0, 1.0, 2 * case["alpha_per_side"])
        assert capital(case["m"], True) == pytest.approx(case["log_capital_up"], abs=1e-9)
        assert capital(case["m"], False) == pytest.approx(case["log_capital_down"], abs=1e-9)


def _population(kind: str, size: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "ties":  # most questions at 0 or 1, as hit@k and a single relevant document give
        return rng.choice([0.0, 1.0, 0.5], size, p=[0.55, 0.4, 0.05])
    if kind == "skew":  # a point mass at 0 and a long tail, as nDCG of a hard set
        return np.where(rng.random(size) < 0.7, 0.0, rng.beta(0.5, 2.0, size))
    return np.where(rng.random(size) < 0.06, rng.uniform(0.3, 0.7, size), 0.0)  # rare changes


def _control(kind: str, x: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    if kind == "none":
        return None
    if kind == "good":  # agrees most of the time
        return np.where(rng.random(len(x)) < 0.8, x, rng.random(len(x)))
    if kind == "useless":
        return rng.random(len(x))
    return 1.0 - x  # adversarial: perfectly anti-correlated


@pytest.mark.parametrize(("kind", "n", "size"), [("ties", 10, 100), ("skew", 30, 300), ("rare", 20, 300)])
@pytest.mark.parametrize("control", ["none", "good", "useless", "adversarial"])
def test_the_interval_covers_the_population_mean(kind: str, control: str, n: int, size: int) -> None:
    rng = np.random.default_rng(hash((kind, control, n)) % 2**32)
    replicates, covered = 120, 0
    for _ in range(replicates):
        x = _population(kind, size, rng)
        c = _control(control, x, rng)
        pick = rng.permutation(size)[:n]
        if c is None:
            lo, hi = finite.interval(x[pick], size, 0.0, 1.0)
        else:
            lo, hi = finite.interval(x[pick], size, 0.0, 1.0, c=c[pick], c_mean=float(c.mean()),
                                     c_variance=float(c.var()))
        assert lo < hi
        covered += lo <= x.mean() <= hi
    # nominal 95 %; betting is conservative: fewer than 7 misses in 120 is what 93.5 % allows with room
    assert covered / replicates >= 0.935 - 2 * math.sqrt(0.935 * 0.065 / replicates)


def test_the_members_seen_settle_what_they_can() -> None:
    """50 of 60 members seen, all 1: the mean is at least 50/60 whatever the other 10 are."""
    lo, hi = finite.interval(np.ones(50), 60, 0.0, 1.0)
    assert lo >= 50 / 60 - 1e-9 and hi == 1.0
    iid = betting.interval(np.ones(50), 0.0, 1.0)
    assert lo > iid[0]  # an i.i.d. interval claims the next question could differ; here only 10 are left


def test_a_constant_control_variate_changes_nothing_and_a_perfect_one_narrows() -> None:
    rng = np.random.default_rng(5)
    x = np.where(rng.random(300) < 0.4, 0.0, rng.beta(2, 1, 300))
    pick = rng.permutation(300)[:40]
    plain = finite.interval(x[pick], 300, 0.0, 1.0)
    assert finite.interval(x[pick], 300, 0.0, 1.0, c=np.full(40, 0.3), c_mean=0.3, c_variance=0.0) == plain
    perfect = finite.interval(x[pick], 300, 0.0, 1.0, c=x[pick], c_mean=float(x.mean()), c_variance=float(x.var()))
    assert perfect[0] <= x.mean() <= perfect[1]
    assert perfect[1] - perfect[0] < 0.75 * (plain[1] - plain[0])  # bets are capped by the range of z, wider


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="population holds the sample"):
        finite.interval(np.ones(5), 4, 0.0, 1.0)
    assert finite.interval(np.zeros(0), 10, 0.0, 1.0) == (0.0, 1.0)


def test_the_golden_set_target_of_ppi() -> None:
    rng = np.random.default_rng(8)
    y_all = np.where(rng.random(200) < 0.35, 0.0, rng.beta(2, 1, 200))
    yhat_all = np.clip(y_all + rng.normal(0, 0.1, 200), 0.05, 0.95)  # c's range, not [0, 1], bounds z
    est = ppi_mean(y_all[:20], yhat_all[:20], yhat_all[20:], target="golden-set")
    assert est.target == "golden-set" and est.method == "betting"
    every = yhat_all
    assert est.estimate == pytest.approx(est.lam * every.mean() + np.mean(y_all[:20] - est.lam * yhat_all[:20]))
    assert est.interval == finite.interval(y_all[:20], 200, 0.0, 1.0, c=yhat_all[:20], c_mean=float(every.mean()),
                                           c_variance=float(every.var()), c_low=float(every.min()),
                                           c_high=float(every.max()))
    assert est.classical_interval == finite.interval(y_all[:20], 200, 0.0, 1.0)
    assert est.width_ratio < 1.0 and est.effective_n > 20
    with pytest.raises(ValueError, match="betting interval only"):
        ppi_mean(y_all[:20], yhat_all[:20], yhat_all[20:], target="golden-set", method="clt")
    with pytest.raises(ValueError, match="unknown PPI target"):
        ppi_mean(y_all[:20], yhat_all[:20], yhat_all[20:], target="everything")


def test_the_golden_set_lambda_is_cov_over_the_variance_of_every_prediction() -> None:
    """No 1 + n/N (the mean of Yhat over the golden set is known, not estimated); written over the N unlabelled,
    as PPI++ writes it, the same estimate has lambda N / (n + N): PPI++'s lambda but for its variance's divisor."""
    rng = np.random.default_rng(3)
    y_all = np.where(rng.random(40) < 0.35, 0.0, rng.beta(2, 1, 40))
    yhat_all = np.clip(y_all + rng.normal(0, 0.25, 40), 0.0, 1.0)
    y, yhat, u = y_all[:12], yhat_all[:12], yhat_all[12:]
    est = ppi_mean(y, yhat, u, target="golden-set")
    cov = np.mean((y - y.mean()) * (yhat - yhat.mean()))
    assert 0.0 < est.lam < 1.0 and est.lam == pytest.approx(cov / np.var(yhat_all))
    as_ppi = ppi_mean(y, yhat, u, method="clt", lam=est.lam * 28 / 40)
    assert as_ppi.estimate == pytest.approx(est.estimate)
    assert est.lam * 28 / 40 == pytest.approx(power_tuning(y, yhat, u) * 40 / 39)


def test_a_control_variate_is_not_used_where_the_values_barely_vary() -> None:
    """Mostly tied paired differences: lambda stays 0 (a wider range would cost more than the spread saves),
    so the interval is the plain one; where the values vary and c tracks them, lambda is used."""
    rng = np.random.default_rng(11)
    x = np.where(rng.random(300) < 0.9, 0.0, rng.choice([-0.5, 0.5], 300))
    c = np.clip(x + rng.normal(0, 0.3, 300), -1, 1)
    pick = rng.permutation(300)[:30]
    kw = {"c_mean": float(c.mean()), "c_variance": float(c.var()), "c_low": float(c.min()), "c_high": float(c.max())}
    rows = x[pick][None, :]
    assert not finite.slopes(rows, c[pick][None, :], c.var(), lambda g: (-1 - g, 1 + g), 0.05).any()
    assert finite.interval(x[pick], 300, -1.0, 1.0, c=c[pick], **kw) == finite.interval(x[pick], 300, -1.0, 1.0)
    y = np.where(rng.random(300) < 0.4, 0.0, np.where(rng.random(300) < 0.6, 1.0, rng.random(300)))  # spread wide
    good = np.clip(y + rng.normal(0, 0.05, 300), 0, 1)
    chosen = finite.slopes(y[pick][None, :], good[pick][None, :], good.var(), lambda g: (-g, 1 + g), 0.05)
    assert not chosen[0, :finite.WARM_UP].any() and chosen[0, -1] > 0.3
