"""Successive halving against the full sweep on the bundled SciFact example (issue 14).

Usage: python benchmarks/bench_halving.py [--output DIR] [--config examples/scifact/sweep.toml]
                                          [--budget 2000 --budget 1200 ...] [--factor 3]

Runs ``ragauge.sweep`` into DIR/full without a budget, then once per budget into DIR/budget-N, all
sharing DIR/cache (copy a warm cache there to leave the one-time MiniLM embedding out: every sweep
opens the same indexes). Prints, per sweep, the wall time of its runs (questions asked and scored),
the retrievals made, the configurations confirmed on every question, the best, the winner and the
set not distinguishable from the best, and whether they match the full sweep's. Run from the
repository root with the Python where ragauge is installed (the dense extra for the default grid).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import ragauge  # noqa: E402


def one(config: Path, output: Path, cache: Path, budget: int | None, factor: int) -> tuple[float, ragauge.SweepResult]:
    output.mkdir(parents=True, exist_ok=True)
    if not (output / "cache").exists():
        (output / "cache").symlink_to(cache.resolve())
    start = time.perf_counter()
    result = ragauge.sweep(ROOT / "examples/scifact/golden.jsonl", "examples/scifact/corpus.jsonl.gz", config, output,
                           budget=budget, factor=factor if budget else None)
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=Path("/tmp/ragauge-bench-halving"))
    parser.add_argument("--config", type=Path, default=ROOT / "examples/scifact/sweep.toml")
    parser.add_argument("--budget", type=int, action="append", default=None)
    parser.add_argument("--factor", type=int, default=3)
    args = parser.parse_args()
    os.chdir(ROOT)  # the specs name the corpus relative to the repository, as the command in docs/sweep.md does
    cache = args.output / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    results = []
    for budget in [None, *(args.budget or [2000, 1200])]:
        folder = args.output / ("full" if budget is None else f"budget-{budget}")
        shutil.rmtree(folder / "runs", ignore_errors=True)
        wall, result = one(args.config, folder, cache, budget, args.factor)
        results.append((budget, wall, result))
    full = results[0][2]
    print(f"{len(full.rows)} configurations, {full.meta['questions']['answerable']} questions, nproc {os.cpu_count()}, "
          f"load avg {os.getloadavg()[0]:.2f}")
    print("| sweep | retrievals | runs s | total s | confirmed | best | winner | not distinguishable from the best "
          "| same best / same set as the full sweep |")
    print("|---|---:|---:|---:|---:|---|---|---|---|")
    for budget, wall, r in results:
        made = r.halving.retrievals if r.halving else len(r.rows) * len(ragauge.load_golden(
            ROOT / "examples/scifact/golden.jsonl"))
        same = (f"{r.selection.best == full.selection.best} / "
                f"{set(r.selection.tied) == set(full.selection.tied)}")
        print(f"| {'full' if budget is None else f'--budget {budget}'} | {made} | {r.meta['seconds']['runs']:.1f} | "
              f"{wall:.1f} | {len(r.confirmed)} | {r.selection.best} | {r.selection.winner or '-'} | "
              f"{', '.join(r.selection.tied)} | {same} |")
    for budget, _, r in results[1:]:
        print(f"\n--budget {budget}: " + "; ".join(f"round {i}: {x.configurations} configurations on {x.questions} "
                                                   f"questions, dropped {', '.join(x.dropped)}"
                                                   for i, x in enumerate(r.halving.rounds, 1)) if r.halving else "")


if __name__ == "__main__":
    main()
