"""Reference capitals from confseq's betting_mart for tests/fixtures/confseq/betting_mart.json.

Usage: python benchmarks/make_confseq_reference.py CONFSEQ_SRC > tests/fixtures/confseq/betting_mart.json
       python benchmarks/make_confseq_reference.py CONFSEQ_SRC --wor > tests/fixtures/confseq/betting_mart_wor.json

``--wor``: the same capitals sampling without replacement from a population of N (``betting_mart(..., N=N)``),
for ``stats.finite``.

CONFSEQ_SRC is the src/ folder of a confseq source tree (github.com/gostevehoward/confseq, MIT licence);
only its pure-Python betting modules are imported (matplotlib and multiprocess are stubbed: unused here),
so neither Boost nor scikit-build is needed.
"""

from __future__ import annotations

import json
import math
import sys
import types

import numpy as np


def main(src: str, wor: bool = False) -> None:
    np.float_ = np.float64  # type: ignore[attr-defined]  # confseq's annotations predate NumPy 2
    for name in ("matplotlib", "matplotlib.pyplot", "multiprocess"):
        sys.modules[name] = types.ModuleType(name)
    pkg = types.ModuleType("confseq")
    pkg.__path__ = [src + "/confseq"]
    sys.modules["confseq"] = pkg
    from confseq.betting import betting_mart
    from confseq.betting_strategies import lambda_predmix_eb

    rng = np.random.default_rng(2024)
    cases = []
    for n, kind in [(12, "ties"), (40, "skew"), (100, "uniform"), (60, "binary")]:
        if kind == "ties":
            d = np.r_[np.zeros(n - 3), [0.4, -0.2, 0.9]]
        elif kind == "skew":
            d = np.where(rng.random(n) < 0.1, -0.8, rng.uniform(0, 0.2, n))
        elif kind == "uniform":
            d = rng.uniform(-1, 1, n)
        else:
            d = rng.choice([-1.0, 0.0, 1.0], n, p=[0.1, 0.7, 0.2])
        x = (d + 1) / 2
        alpha = 0.05

        def bets(x: np.ndarray, m: float, alpha: float = alpha) -> np.ndarray:
            return lambda_predmix_eb(x, alpha=alpha / 2, fixed_n=len(x))

        population = 3 * n if wor else None
        for m in (0.3, 0.45, 0.5, 0.55, 0.7):
            up = betting_mart(x, m, alpha=alpha, theta=1, trunc_scale=0.5, lambdas_fn_positive=bets,
                              N=population)[-1]
            down = betting_mart(x, m, alpha=alpha, theta=0, trunc_scale=0.5, lambdas_fn_negative=bets,
                                N=population)[-1]
            case = {"differences": d.tolist(), "m": m, "alpha_per_side": alpha / 2,
                    "log_capital_up": math.log(up), "log_capital_down": math.log(down)}
            cases.append(case | ({"population": population} if wor else {}))
    print(json.dumps({"source": "confseq 0.0.11 (github.com/gostevehoward/confseq, MIT licence), "
                                "confseq.betting.betting_mart with lambda_predmix_eb(fixed_n=n), trunc_scale=1/2, "
                                "theta=1 (upward) and theta=0 (downward), on y = (d + 1) / 2"
                                + (", sampling without replacement from N = 3n (N=N)" if wor else ""),
                      "cases": cases}))


if __name__ == "__main__":
    main(sys.argv[1], "--wor" in sys.argv[2:])
