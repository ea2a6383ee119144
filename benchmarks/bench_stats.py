"""Calibration of the paired statistics by simulation, the grid of issue 12, before and after.

Usage: python benchmarks/bench_stats.py [--experiments 2000] [--sizes 10,20,30,50,100,300]

For each population of ``tests/stats/populations.py`` and golden-set size n, draws
``--experiments`` sets of n questions and reports, with Monte-Carlo standard errors:
- coverage of the true mean difference by the 95% interval: ragauge's (paired t, or Tango for 0/1
  values) and the percentile bootstrap ragauge used before (2,000 resamples);
- type-I error at alpha 0.05 under exchangeability (a change of equal quality): ragauge's test and
  the sign-flip randomization test used before (2,000 permutations);
- how often the plain gate rule "drop > 0.02" fires on such a change (any of the four default
  metrics is not simulated jointly here: one metric at a time);
- the time of ``ragauge.compare`` on two 100,000-question results.
Run from the repository root with the Python where ragauge is installed.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ragauge.stats.paired import paired_test  # noqa: E402
from tests.stats.populations import KINDS, draws, exchangeable, population  # noqa: E402

OLD_RESAMPLES = 2000


def old_bootstrap(d: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
    means = d[rng.integers(0, len(d), (OLD_RESAMPLES, len(d)))].mean(1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    return float(lo), float(hi)


def old_sign_flip(d: np.ndarray, rng: np.random.Generator) -> float:
    d = d[d != 0]
    if not len(d):
        return 1.0
    signs = rng.choice([-1.0, 1.0], (OLD_RESAMPLES, len(d)))
    return float((1 + np.sum(np.abs(signs @ d) >= abs(d.sum()) - 1e-12)) / (OLD_RESAMPLES + 1))


def rate(hits: int, total: int) -> str:
    p = hits / total
    return f"{100 * p:5.1f} ± {100 * math.sqrt(p * (1 - p) / total):.1f}"


def grid(experiments: int, sizes: list[int]) -> None:
    rng = np.random.default_rng(11)
    print(f"{experiments} experiments per cell; ± is one Monte-Carlo standard error (percentage points)\n")
    print("| population | n | coverage, ragauge | coverage, old bootstrap | type-I, ragauge | type-I, old sign-flip "
          "| plain rule fires on no change |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind in KINDS:
        b, n = population(kind)
        truth = float((n - b).mean())
        nb, nn = exchangeable(kind)
        for size in sizes:
            cov_new = cov_old = rej_new = rej_old = fired = 0
            for (x, y), (u, v) in zip(draws(b, n, size, experiments, seed=size),
                                      draws(nb, nn, size, experiments, seed=size + 1)):
                lo, hi = paired_test(x, y).ci
                cov_new += lo <= truth <= hi
                blo, bhi = old_bootstrap(y - x, rng)
                cov_old += blo <= truth <= bhi
                rej_new += paired_test(u, v).p_value < 0.05
                rej_old += old_sign_flip(v - u, rng) < 0.05
                fired += (u.mean() - v.mean()) > 0.02
            print(f"| {kind} | {size} | {rate(cov_new, experiments)} | {rate(cov_old, experiments)} | "
                  f"{rate(rej_new, experiments)} | {rate(rej_old, experiments)} | {rate(fired, experiments)} |",
                  flush=True)


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
    parser.add_argument("--no-speed", action="store_true")
    args = parser.parse_args()
    grid(args.experiments, [int(s) for s in args.sizes.split(",")])
    if not args.no_speed:
        compare_speed()


if __name__ == "__main__":
    main()
