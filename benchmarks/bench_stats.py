"""Calibration of ragauge's paired statistics (the betting test of Waudby-Smith & Ramdas) by simulation.

Usage: python benchmarks/bench_stats.py [--experiments 2000] [--sizes 10,20,30,50,100,300] [--quick]
                                        [--jobs 2] [--speed]

Golden sets of n questions are drawn with replacement from populations of paired per-question values:
the synthetic populations of ``tests/stats/populations.py`` (200,000 questions each) and real pairs
from ``tests/fixtures/scifact_pairs/values.json.gz`` (1,109 SciFact questions; each non-default BM25
configuration against ``default``; the truth is the mean difference over the 1,109). Tables, every rate
with +- one Monte-Carlo standard error (percentage points):

1. Coverage of the true mean difference by the 95% interval: ragauge (``paired_test(...).ci``) against
   the paired t-interval used before (mean +- t(0.975, n-1) sd / sqrt(n), scipy's t quantile; before
   the change, 0/1 values had Tango's interval, not simulated here: the t column is paired t for every
   metric), and how often each printed interval has zero width (hi - lo < 1e-12; for t, when every
   difference is equal).
2. Type-I error of the two-sided test at alpha 0.05 on a change of equal quality: ``exchangeable(kind)``
   for the synthetic kinds, ``population("skewed null")`` as it is (mean difference exactly 0), and for
   SciFact base and new swapped at random per drawn question (a fresh swap in every experiment).
3. Non-inferiority false pass: the differences moved so the change is truly worse by exactly the margin
   0.02 (d' = clip(d - c, -1, 1), c such that mean(d') = -0.02 over the population; c = mean(d) + 0.02
   unless a difference reaches -1), and how often "shown no worse than -0.02" passes
   (``one_sided_p(test, -0.02, "greater", 0.05) < 0.05``; for t, the one-sided t lower bound > -0.02).
4. The gate's family: 4 SciFact metrics at once (hit@10, recall@10, mrr@10, ndcg@10 of one pair, the
   same questions for all four, base and new swapped at random per question), fail_if = "significant":
   the gate fails when any Holm-adjusted one-sided drop p-value (``one_sided_p(test, 0, "less", 0.05)``)
   is below 0.05; also without the correction.
5. Width: the median of (betting interval width / paired t width) over the experiments of table 1 at
   n = 100 and 300 (the sizes run among them), with the median's standard error from its rank.
6. Printed against simulated power for 0/1 metrics: MDE = ``minimum_detectable_effect(
   Differences.observed(d), n)`` with d a seeded 4,000-sample of the population's differences; the
   whole population is then exponentially tilted (w ~ exp(eta d), eta by bisection) to mean MDE, and
   the share of fresh golden sets with ``paired_test(...).p_value < 0.05`` should be 80% (+-5).

Cells run in ``--jobs`` processes. ``--quick``: 200 experiments, sizes 20,100 (under a minute on 2 cores);
``--speed`` also times ``ragauge.compare`` on two 100,000-question results.
Run from the repository root with the Python where ragauge is installed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy import stats as sps

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragauge.stats.holm import holm  # noqa: E402
from ragauge.stats.paired import one_sided_p, paired_test  # noqa: E402
from ragauge.stats.power import Differences, minimum_detectable_effect, required_questions  # noqa: E402
from ragauge.stats.sequential import sequential_test  # noqa: E402
from tests.stats.populations import KINDS, exchangeable, population  # noqa: E402

SCIFACT = ROOT / "tests" / "fixtures" / "scifact_pairs" / "values.json.gz"
ALPHA = 0.05
MARGIN = 0.02
GATE_METRICS = ("hit@10", "recall@10", "mrr@10", "ndcg@10")
WIDTH_KINDS = ("recall@5", "rr", "ndcg")
WIDTH_SIZES = (100, 300)
POWER_SIZES = (30, 50, 100)
POWER_SAMPLE = 4000
ZERO = 1e-12

# A population is ("synthetic", kind) or ("scifact", config, metric) (new = config, base = default).
Key = tuple[str, ...]


@lru_cache(maxsize=1)
def scifact() -> dict:
    with gzip.open(SCIFACT, "rt") as f:
        return json.load(f)


def scifact_configs() -> list[str]:
    return [c for c in scifact()["configs"] if c != "default"]


@lru_cache(maxsize=64)
def pair(key: Key) -> tuple[np.ndarray, np.ndarray]:
    """(base, new) per-question values of a population."""
    if key[0] == "synthetic":
        return population(key[1])
    values = scifact()["values"]
    return np.asarray(values["default"][key[2]], dtype=float), np.asarray(values[key[1]][key[2]], dtype=float)


def label(key: Key) -> str:
    return key[1] if key[0] == "synthetic" else f"SciFact {key[1]}, {key[2]}"


def rng_for(*parts: object) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("|".join(map(str, parts)).encode()))


def rate(hits: int, total: int) -> str:
    p = hits / total
    return f"{100 * p:5.1f} ± {100 * math.sqrt(p * (1 - p) / total):.1f}"


def t_stats(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of d (experiments x n): the mean and the standard error sd / sqrt(n) (0 when every
    difference of the row is equal)."""
    n = d.shape[1]
    mean = d.mean(axis=1)
    se = d.std(axis=1, ddof=1) / math.sqrt(n)
    se[np.ptp(d, axis=1) == 0] = 0.0
    return mean, se


def t_two_sided_p(d: np.ndarray) -> np.ndarray:
    mean, se = t_stats(d)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = 2.0 * sps.t.sf(np.abs(mean / se), d.shape[1] - 1)
    return np.where(se > 0, p, np.where(mean == 0, 1.0, 0.0))


def t_drop_p(d: np.ndarray) -> np.ndarray:
    """One-sided paired t p-value of "no drop" against a drop."""
    mean, se = t_stats(d)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = sps.t.cdf(mean / se, d.shape[1] - 1)
    return np.where(se > 0, p, np.where(mean < 0, 0.0, 1.0))


def tilt(d: np.ndarray, effect: float) -> np.ndarray:
    """Weights exp(eta d) / Z giving mean difference ``effect`` (eta by bisection)."""
    def mean_at(eta: float) -> float:
        w = np.exp(eta * (d - (d.max() if eta > 0 else d.min())))
        return float((w * d).sum() / w.sum())

    lo, hi = -1.0, 1.0
    while mean_at(lo) > effect:
        lo *= 2.0
    while mean_at(hi) < effect:
        hi *= 2.0
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if mean_at(mid) < effect:
            lo = mid
        else:
            hi = mid
    eta = (lo + hi) / 2.0
    w = np.exp(eta * (d - (d.max() if eta > 0 else d.min())))
    return np.asarray(w / w.sum())


@lru_cache(maxsize=64)
def shifted_to_margin(key: Key) -> np.ndarray:
    """The population's differences moved to have mean exactly -MARGIN, within [-1, 1]."""
    base, new = pair(key)
    d = new - base
    lo, hi = -2.0, 2.0  # mean(clip(d - c)) decreases in c
    for _ in range(100):
        c = (lo + hi) / 2.0
        if np.clip(d - c, -1.0, 1.0).mean() > -MARGIN:
            lo = c
        else:
            hi = c
    return np.asarray(np.clip(d - (lo + hi) / 2.0, -1.0, 1.0))


# ---------------------------------------------------------------------------------------------- cells


def cell_coverage(key: Key, n: int, experiments: int) -> dict:
    base, new = pair(key)
    truth = float((new - base).mean())
    idx = rng_for("coverage", key, n).integers(0, len(base), (experiments, n))
    x, y = base[idx], new[idx]
    cov = zero = 0
    widths = np.empty(experiments)
    for i in range(experiments):
        lo, hi = paired_test(x[i], y[i]).ci
        cov += lo <= truth <= hi
        zero += hi - lo < ZERO
        widths[i] = hi - lo
    mean, se = t_stats(y - x)
    half = sps.t.ppf(1 - ALPHA / 2, n - 1) * se
    t_cov = int(np.sum((mean - half <= truth) & (truth <= mean + half)))
    t_zero = int(np.sum(2 * half < ZERO))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = widths / (2 * half)
    return {"truth": truth, "cov": int(cov), "zero": int(zero), "t_cov": t_cov, "t_zero": t_zero, "ratio": ratio}


def cell_type1(key: Key, n: int, experiments: int) -> dict:
    rng = rng_for("type-I", key, n)
    if key[0] == "synthetic":
        base, new = population(key[1]) if key[1] == "skewed null" else exchangeable(key[1])
        idx = rng.integers(0, len(base), (experiments, n))
        x, y = base[idx], new[idx]
    else:
        base, new = pair(key)
        idx = rng.integers(0, len(base), (experiments, n))
        swap = rng.random((experiments, n)) < 0.5
        x, y = np.where(swap, new[idx], base[idx]), np.where(swap, base[idx], new[idx])
    rej = sum(paired_test(x[i], y[i]).p_value < ALPHA for i in range(experiments))
    t_rej = int(np.sum(t_two_sided_p(y - x) < ALPHA))
    return {"rej": int(rej), "t_rej": t_rej}


def cell_noninferiority(key: Key, n: int, experiments: int) -> dict:
    d = shifted_to_margin(key)
    sample = d[rng_for("non-inferiority", key, n).integers(0, len(d), (experiments, n))]
    zeros = np.zeros(n)
    passed = sum(one_sided_p(paired_test(zeros, sample[i]), -MARGIN, "greater", ALPHA) < ALPHA
                 for i in range(experiments))
    mean, se = t_stats(sample)
    lower = mean - sps.t.ppf(1 - ALPHA, n - 1) * se
    return {"truth": float(d.mean()), "pass": int(passed), "t_pass": int(np.sum(lower > -MARGIN))}


def cell_gate(config: str, n: int, experiments: int) -> dict:
    rng = rng_for("gate", config, n)
    pairs = [pair(("scifact", config, m)) for m in GATE_METRICS]
    idx = rng.integers(0, len(pairs[0][0]), (experiments, n))
    swap = rng.random((experiments, n)) < 0.5  # one swap per question, for all four metrics
    p = np.empty((len(GATE_METRICS), experiments))
    t_p = np.empty((len(GATE_METRICS), experiments))
    for j, (base, new) in enumerate(pairs):
        x, y = np.where(swap, new[idx], base[idx]), np.where(swap, base[idx], new[idx])
        for i in range(experiments):
            p[j, i] = one_sided_p(paired_test(x[i], y[i]), 0.0, "less", ALPHA)
        t_p[j] = t_drop_p(y - x)
    holm_fail = sum(min(holm(list(p[:, i]))) < ALPHA for i in range(experiments))
    t_holm_fail = sum(min(holm(list(t_p[:, i]))) < ALPHA for i in range(experiments))
    return {"holm": int(holm_fail), "raw": int(np.sum(p.min(axis=0) < ALPHA)),
            "t_holm": int(t_holm_fail), "t_raw": int(np.sum(t_p.min(axis=0) < ALPHA))}


def cell_power(key: Key, n: int, experiments: int) -> dict:
    base, new = pair(key)
    d = new - base
    sample = d[rng_for("power sample", key).integers(0, len(d), POWER_SAMPLE)]
    mde = minimum_detectable_effect(Differences.observed(sample), n)
    if mde is None or not d.min() < mde < d.max():
        return {"mde": mde, "rej": None}
    w = tilt(d, mde)
    draws = d[rng_for("power", key, n).choice(len(d), size=(experiments, n), p=w)]
    zeros = np.zeros(n)
    rej = sum(paired_test(zeros, draws[i]).p_value < ALPHA for i in range(experiments))
    return {"mde": mde, "rej": int(rej), "changed": float((w * (d != 0)).sum())}


SEQUENTIAL_EFFECT = 0.05
SEQUENTIAL_PLANNED_FOR = 0.02


def cell_sequential(key: Key, n: int, experiments: int) -> dict:
    """The sequential comparison on a pair whose true difference is at least 0.05 (a synthetic one
    tilted to 0.05): right verdicts, and the question at which it stopped, against the questions a
    fixed-size test planned for a 0.02 difference at 80 % power needs (``planned``, the most it asks)."""
    base, new = pair(key)
    d = new - base
    truth = float(d.mean())
    w = tilt(d, SEQUENTIAL_EFFECT) if key[0] == "synthetic" else None
    effect = SEQUENTIAL_EFFECT if w is not None else truth
    sample = d[rng_for("sequential sample", key).integers(0, len(d), POWER_SAMPLE)]
    planned = required_questions(Differences.observed(sample), SEQUENTIAL_PLANNED_FOR) or 100_000
    rng = rng_for("sequential", key)
    right, stops = 0, []
    for _ in range(experiments):
        x = d[rng.choice(len(d), planned, p=w)]
        t = sequential_test(x, ALPHA)
        right += t.decided == ("better" if effect > 0 else "worse")
        stops.append(t.stopped_at or planned)
    return {"truth": effect, "planned": planned, "right": right, "median": float(np.median(stops))}


def cell_sequential_null(key: Key, n: int, experiments: int) -> dict:
    """A change of equal quality (each drawn question's difference given a random sign) watched after
    every one of ``n`` questions: how often the sequential comparison decides anything."""
    base, new = pair(key)
    d = new - base
    rng = rng_for("sequential null", key, n)
    wrong = 0
    for _ in range(experiments):
        x = d[rng.integers(0, len(d), n)] * rng.choice([-1.0, 1.0], n)
        wrong += sequential_test(x, ALPHA).decided is not None
    return {"wrong": wrong}


CELLS = {"coverage": cell_coverage, "type1": cell_type1, "noninferiority": cell_noninferiority,
         "gate": cell_gate, "power": cell_power, "sequential": cell_sequential,
         "sequential_null": cell_sequential_null}


def run_cell(task: tuple) -> tuple[tuple, dict, float]:
    start = time.perf_counter()
    table, key, n, experiments = task
    return task, CELLS[table](key, n, experiments), time.perf_counter() - start


# ---------------------------------------------------------------------------------------------- tables


def tasks(experiments: int, sizes: list[int], tables: set[str] | None = None) -> list[tuple]:
    configs = scifact_configs()
    synthetic = [("synthetic", k) for k in KINDS]
    ndcg = [("scifact", c, "ndcg@10") for c in configs]
    hit = [("scifact", c, "hit@10") for c in configs]
    both = [k for c in configs for k in (("scifact", c, "ndcg@10"), ("scifact", c, "hit@10"))]
    out: list[tuple] = []
    out += [("coverage", k, n, experiments) for k in synthetic if k[1] != "skewed null" for n in sizes]
    out += [("coverage", k, n, experiments) for k in both for n in sizes]
    out += [("type1", k, n, experiments) for k in synthetic + both for n in sizes]
    out += [("noninferiority", k, n, experiments) for k in synthetic + ndcg for n in sizes]
    out += [("gate", c, n, experiments) for c in configs for n in sizes]
    out += [("power", k, n, experiments) for k in [("synthetic", "hit"), *hit] for n in POWER_SIZES]
    far = [k for k in ndcg if abs(float((pair(k)[1] - pair(k)[0]).mean())) >= SEQUENTIAL_EFFECT]
    out += [("sequential", k, 0, max(100, experiments // 10)) for k in [("synthetic", "ndcg"), *far]]
    out += [("sequential_null", k, max(sizes), max(100, experiments // 4))
            for k in [("synthetic", "ndcg"), ("synthetic", "hit"), *ndcg]]
    return [t for t in out if tables is None or t[0] in tables]


HEADERS = {
    "coverage": (
        "## 1. Coverage of the true mean difference by the 95% interval\n\n"
        "paired t: mean ± t(0.975, n-1)·sd/√n for every metric (before, 0/1 metrics had Tango's interval, "
        "not simulated here); zero width: hi - lo < 1e-12.\n\n"
        "| population | n | true diff | coverage, ragauge (betting) | coverage, paired t (before) "
        "| zero width, ragauge | zero width, paired t |\n|---|---:|---:|---:|---:|---:|---:|"),
    "type1": (
        "## 2. Type-I error of the two-sided test at alpha 0.05 (a change of equal quality)\n\n"
        "Synthetic: `exchangeable(kind)`, and `population(\"skewed null\")` as it is (mean difference exactly 0); "
        "SciFact: base and new swapped at random per drawn question.\n\n"
        "| population | n | type-I, ragauge (betting) | type-I, paired t (before) |\n|---|---:|---:|---:|"),
    "noninferiority": (
        f"## 3. Non-inferiority false pass: the change truly worse by exactly the margin {MARGIN}\n\n"
        f"Rate of \"shown no worse than -{MARGIN}\" at alpha 0.05 (goal: at most 5%). ragauge: "
        f"`one_sided_p(test, -{MARGIN}, \"greater\", 0.05) < 0.05`; "
        f"paired t: one-sided 95% lower bound > -{MARGIN}.\n\n"
        "| population | n | true diff | false pass, ragauge (betting) | false pass, paired t |"
        "\n|---|---:|---:|---:|---:|"),
    "gate": (
        "## 4. The gate's family: 4 SciFact metrics at once under a change of equal quality\n\n"
        f"{', '.join(GATE_METRICS)} of one pair, the same questions for all four, base and new swapped at random "
        "per question; fail_if = \"significant\": the gate fails when any Holm-adjusted one-sided drop p-value "
        "is below 0.05 (goal: at most 5%).\n\n"
        "| pair | n | gate fails, ragauge, Holm | ragauge, uncorrected | paired t, Holm | paired t, uncorrected |"
        "\n|---|---:|---:|---:|---:|---:|"),
    "power": (
        "## 6. Printed against simulated power (0/1 metrics)\n\n"
        f"MDE = `minimum_detectable_effect(Differences.observed(d), n)`, d a {POWER_SAMPLE:,}-sample of the "
        "population's differences; the population tilted to mean MDE; simulated power = share of fresh golden sets "
        "with two-sided p < 0.05 (goal: 80 ± 5).\n\n"
        "| population | n | printed MDE | changed questions (tilted) | simulated power |\n|---|---:|---:|---:|---:|"),
    "sequential": (
        f"## 7. Sequential comparison on a true difference of at least {SEQUENTIAL_EFFECT}\n\n"
        "Questions asked in random order, both retrievers' values read, stopped at the first question after which "
        "the confidence sequence excludes 0; at most the questions a fixed-size test planned for a "
        f"{SEQUENTIAL_PLANNED_FOR} difference at 80 % power needs (goal: the right verdict in >= 80 % of runs, "
        "median stop <= 60 % of those questions). Synthetic nDCG tilted to +0.05; SciFact pairs as they are.\n\n"
        "| population | true diff | questions planned for 0.02 | right verdict | median stop | share of planned |"
        "\n|---|---:|---:|---:|---:|---:|"),
    "sequential_null": (
        "## 8. Sequential comparison under continuous monitoring, a change of equal quality\n\n"
        "Each drawn question's difference given a random sign; the comparison looks after every question up to n "
        "(goal: decides anything in at most 5 % of runs).\n\n"
        "| population | n (looks) | decided, ragauge (betting sequence) |\n|---|---:|---:|"),
}


def row(task: tuple, r: dict) -> str:
    table, key, n, e = task
    if table == "coverage":
        return (f"| {label(key)} | {n} | {r['truth']:+.4f} | {rate(r['cov'], e)} | {rate(r['t_cov'], e)} | "
                f"{rate(r['zero'], e)} | {rate(r['t_zero'], e)} |")
    if table == "type1":
        name = label(key) + (" (as is)" if key == ("synthetic", "skewed null") else "")
        return f"| {name} | {n} | {rate(r['rej'], e)} | {rate(r['t_rej'], e)} |"
    if table == "noninferiority":
        return f"| {label(key)} | {n} | {r['truth']:+.4f} | {rate(r['pass'], e)} | {rate(r['t_pass'], e)} |"
    if table == "gate":
        return (f"| SciFact {key} | {n} | {rate(r['holm'], e)} | {rate(r['raw'], e)} | {rate(r['t_holm'], e)} | "
                f"{rate(r['t_raw'], e)} |")
    if table == "sequential":
        return (f"| {label(key)} | {r['truth']:+.4f} | {r['planned']:,} | {rate(r['right'], e)} | "
                f"{r['median']:.0f} | {r['median'] / r['planned']:.0%} |")
    if table == "sequential_null":
        return f"| {label(key)} | {n} | {rate(r['wrong'], e)} |"
    if r["rej"] is None:
        mde = "none" if r["mde"] is None else f"{r['mde']:.3f} (beyond the population)"
        return f"| {label(key)} | {n} | {mde} | | |"
    return f"| {label(key)} | {n} | {r['mde']:.3f} | {100 * r['changed']:.1f}% | {rate(r['rej'], e)} |"


def width_table(ratios: dict[tuple[Key, int], np.ndarray], experiments: int) -> str:
    lines = ["## 5. Width: median of (betting interval width / paired t width), experiments of table 1\n",
             "± is the median's standard error from its rank (the ratio is infinite when the t interval has "
             "zero width).\n"]
    sizes = sorted({n for _, n in ratios})
    if not sizes:
        return "\n".join(lines + ["(none of n = 100, 300 was run)"])
    lines.append("| population | " + " | ".join(f"n = {n}" for n in sizes) + " |")
    lines.append("|---|" + "---:|" * len(sizes))
    keys = list(dict.fromkeys(k for k, _ in ratios))
    for key in keys:
        cells = []
        for n in sizes:
            r = np.sort(ratios[(key, n)])
            half = math.sqrt(len(r)) / 2.0
            lo, hi = r[max(0, int(len(r) / 2 - half))], r[min(len(r) - 1, int(len(r) / 2 + half))]
            cells.append(f"{np.median(r):.2f} ± {(hi - lo) / 2:.3f}")
        lines.append(f"| {label(key)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(experiments: int, sizes: list[int], jobs: int, tables: set[str] | None = None) -> None:
    todo = tasks(experiments, sizes, tables)
    print(f"{experiments} experiments per cell in every table; ± is one Monte-Carlo standard error "
          f"(percentage points); {len(todo)} cells in {jobs} processes.\n", flush=True)
    start = time.perf_counter()
    ratios: dict[tuple[Key, int], np.ndarray] = {}
    current = None
    width_keys = {("synthetic", k) for k in WIDTH_KINDS} | {("scifact", c, "ndcg@10") for c in scifact_configs()}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for task, result, _ in pool.map(run_cell, todo, chunksize=1):
            table, key, n, _ = task
            if table != current:
                if current == "gate" and ratios:
                    print("\n" + width_table(ratios, experiments), flush=True)
                print(("\n" if current else "") + HEADERS[table], flush=True)
                current = table
            if table == "coverage" and key in width_keys and n in WIDTH_SIZES:
                ratios[(key, n)] = result["ratio"]
            print(row(task, result), flush=True)
    print(f"\nall cells: {time.perf_counter() - start:.0f} s wall")


def compare_speed() -> None:
    import ragauge

    rng = np.random.default_rng(3)
    golden = [{"id": f"q{i}", "query": "q", "relevant": [f"d{i}"], "tags": [f"t{i % 20}"]} for i in range(100_000)]
    runs = []
    for shift in (0, 1):
        runs.append({f"q{i}": [f"x{i}", f"d{i}"] if rng.random() < 0.3 + 0.05 * shift else [f"d{i}"]
                     for i in range(100_000)})
    base = ragauge.evaluate_run(golden, runs[0], k=5)
    new = ragauge.evaluate_run(golden, runs[1], k=5)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        ragauge.compare(base, new)
        times.append(time.perf_counter() - start)
    print(f"\ncompare, two evaluated 100,000-question results, 4 metrics x (overall + 20 tags): "
          f"median {sorted(times)[1]:.2f} s over 3")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--experiments", type=int, default=2000)
    parser.add_argument("--sizes", default="10,20,30,50,100,300")
    parser.add_argument("--quick", action="store_true", help="200 experiments, sizes 20,100")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--speed", action="store_true", help="also time ragauge.compare")
    parser.add_argument("--tables", help="only these tables: " + ", ".join(CELLS))
    args = parser.parse_args()
    experiments, sizes = args.experiments, [int(s) for s in args.sizes.split(",")]
    if args.quick:
        experiments, sizes = 200, [20, 100]
    run(experiments, sizes, args.jobs, set(args.tables.split(",")) if args.tables else None)
    if args.speed:
        compare_speed()


if __name__ == "__main__":
    main()
