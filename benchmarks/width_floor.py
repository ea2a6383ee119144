"""How wide an interval valid for every distribution on [-1, 1] is, against the paired t interval (issue 25).

For normal differences (mean 0.02, sd ``--sds``) clipped to [-1, 1], at each n of ``--ns``, the median over
``--draws`` samples of the 95 % interval's width divided by the t interval's, for:

- ``betting``: ragauge's interval (``stats.betting.interval``, Waudby-Smith & Ramdas's hedged capital);
- ``anderson``: Anderson's (1969) bound, the other classical interval valid for every distribution on a
  known range and not built on an e-value: the mean of the empirical distribution with its lowest (for the
  upper end; highest for the lower) sqrt(log(2 / alpha) / 2n) of mass moved to the range's end (the one-sided
  Dvoretzky-Kiefer-Wolfowitz band at alpha / 2 a side);
- ``e-value floor``: sqrt(2 log(2 / alpha)) / z(1 - alpha / 2), the ratio any interval from Markov's inequality
  on a product of bets tends to at a fixed n (1.386 at alpha 0.05).

    python benchmarks/width_floor.py            # a few seconds
"""

from __future__ import annotations

import argparse
import math
import statistics

import numpy as np


def anderson(x: np.ndarray, low: float, high: float, alpha: float) -> tuple[float, float]:
    """Anderson's interval for the mean of a distribution on [low, high] from the sample ``x``."""
    eps = math.sqrt(math.log(2.0 / alpha) / (2 * len(x)))

    def moved(ascending: np.ndarray, end: float) -> float:
        """The mean with the first ``eps`` of mass (in the order given) moved to ``end``."""
        mass = np.full(len(ascending), 1.0 / len(ascending))
        taken = np.minimum(mass, np.clip(eps - np.concatenate(([0.0], np.cumsum(mass)[:-1])), 0.0, None))
        return float(((mass - taken) * ascending).sum() + eps * end)

    ordered = np.sort(x)
    return moved(ordered[::-1], low), moved(ordered, high)


def main() -> None:
    from scipy import stats

    from ragauge.stats import betting

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sds", default="0.3,0.15")
    ap.add_argument("--ns", default="100,300")
    ap.add_argument("--draws", type=int, default=20)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    floor = math.sqrt(2 * math.log(2 / args.alpha)) / stats.norm.ppf(1 - args.alpha / 2)
    print(f"e-value floor: {floor:.3f}x the t interval")
    print("| sd | n | betting / t | anderson / t |\n|---:|---:|---:|---:|")
    for sd in (float(s) for s in args.sds.split(",")):
        for n in (int(s) for s in args.ns.split(",")):
            ratios: dict[str, list[float]] = {"betting": [], "anderson": []}
            for _ in range(args.draws):
                x = np.clip(rng.normal(0.02, sd, n), -1.0, 1.0)
                t = 2 * stats.t.ppf(1 - args.alpha / 2, n - 1) * x.std(ddof=1) / math.sqrt(n)
                lo, hi = betting.interval(x, -1.0, 1.0, 1 - args.alpha)
                ratios["betting"].append((hi - lo) / t)
                lo, hi = anderson(x, -1.0, 1.0, args.alpha)
                ratios["anderson"].append((hi - lo) / t)
            print(f"| {sd} | {n} | {statistics.median(ratios['betting']):.2f} | "
                  f"{statistics.median(ratios['anderson']):.2f} |", flush=True)


if __name__ == "__main__":
    main()
