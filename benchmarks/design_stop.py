"""Could a uniformly random sample of whole questions, judged in full, settle a comparison at a quarter of
pool order's judgements? A bound on any design-based stop for ``golden judge --for-verdict`` (issue 30).

The stop considered: judge a uniformly random sample of the questions in full, then state the full-label
verdict from a finite-population interval for the full set's mean difference (``stats.finite.interval``,
valid for any population of values in [-1, 1] without a model of the labels). It can say "no evidence"
only if every full-set mean its interval allows leaves the full-label test without evidence, which asks
(to first order: the full test's interval moves with the mean) that the sample's interval be no wider than
the full-label test's own interval. For the pairs of ``for_verdict.py`` (SciFact's 300 test questions,
nDCG@10, the runs in ``benchmarks/data/verdict/``), this prints, per fraction of the questions sampled, the
median over ``--draws`` samples of the sample interval's width against the full-label interval's (compare's
``ci``), the share of the samples that settle the verdict to first order (``settles``: every full-set mean
in the sample's interval, shifted by the full interval's ends, gives the full-label verdict), and the
smallest fraction at which at least half of them do. A sample of a fraction f of the
questions costs, in expectation, f of the pool's judgements; pool order needs 83-100 % of them (the table
of ``for_verdict.py``), so f above a quarter puts a pair past the issue's bar of 25 %.

    python benchmarks/design_stop.py                      # every pair, 40 draws: ~10 min on 2 cores
    python benchmarks/design_stop.py --draws 200 --json benchmarks/data/design_stop.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import numpy as np
from for_verdict import PAIRS, RUNS, SCIFACT, make_runs

FRACTIONS = (0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9)


def per_question(name: str, metric: str, cache: dict[str, dict[str, float]]) -> dict[str, float]:
    """The run's per-question values on the full golden set."""
    import ragauge

    if name not in cache:
        scored = ragauge.evaluate(str(SCIFACT / "golden.jsonl"), run=str(RUNS / f"{name}.run.jsonl"), metrics=[metric])
        cache[name] = dict(zip(scored.row_ids, scored.column(metric).tolist()))
    return cache[name]


def settles(low: float, high: float, below: float, above: float, sign: int) -> bool:
    """Whether every full-set mean in the sample's interval [low, high] gives the full-label verdict
    ``sign`` (-1 worse, 1 better, 0 no evidence), to first order: the full-label interval is the full
    mean plus [below, above] (its ends' distances from the full mean, as measured)."""
    if sign < 0:
        return high + above < 0
    if sign > 0:
        return low + below > 0
    return low + above >= 0 and high + below <= 0


def main() -> None:
    import ragauge
    from ragauge.stats import finite

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", help="BASE:NEW,... (default: every pair of for_verdict.py)")
    ap.add_argument("--metric", default="ndcg@10")
    ap.add_argument("--draws", type=int, default=40, help="random samples per fraction")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, help="write every figure here")
    args = ap.parse_args()
    pairs = [tuple(p.split(":")) for p in args.pairs.split(",")] if args.pairs else PAIRS
    make_runs({n for pair in pairs for n in pair})
    rng = np.random.default_rng(args.seed)
    cache: dict[str, dict[str, float]] = {}
    rows = []
    for base, new in pairs:
        a, b = per_question(base, args.metric, cache), per_question(new, args.metric, cache)
        ids = sorted(set(a) & set(b))
        d = np.array([b[q] - a[q] for q in ids])
        full = ragauge.compare(str(RUNS / f"{base}.run.jsonl"), str(RUNS / f"{new}.run.jsonl"),
                               golden=str(SCIFACT / "golden.jsonl"), metrics=[args.metric]).metrics[args.metric]
        width = full.ci[1] - full.ci[0]
        below, above = full.ci[0] - full.diff, full.ci[1] - full.diff  # the full interval about its mean
        sign = -1 if full.ci[1] < 0 else 1 if full.ci[0] > 0 else 0
        ratios, settled = {}, {}
        for f in FRACTIONS:
            m = round(f * len(d))
            ends = [finite.interval(d[rng.choice(len(d), m, replace=False)], len(d), -1.0, 1.0)
                    for _ in range(args.draws)]
            ratios[f] = round(float(statistics.median(h - lo for lo, h in ends)) / width, 3)
            settled[f] = round(sum(settles(lo, h, below, above, sign) for lo, h in ends) / len(ends), 3)
        row = {"base": base, "new": new, "verdict": full.verdict, "diff": round(full.diff, 4),
               "full_ci": [round(x, 4) for x in full.ci], "questions": len(d), "width_ratio": ratios,
               "settled_share": settled,
               "smallest_fraction_half_settled": next((f for f in FRACTIONS if settled[f] >= 0.5), None)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps({"draws": args.draws, "rows": rows}, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
