"""The "questions needed" table of docs/statistics.md, for the betting test on SciFact's real pairs.

Usage: python benchmarks/power_table.py

For each configuration of tests/fixtures/scifact_pairs against the default and each metric, the
observed per-question differences are the population (``stats.power.Differences.observed``); the table
gives the questions the two-sided betting test at alpha 0.05 needs to detect +-0.02 and +-0.05 with 80 %
power, and its minimum detectable effect at 100, 300 and 1,000 questions (``ragauge power`` computes the
same from your own runs). Run from the repository root with the Python where ragauge is installed.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragauge.stats.power import Differences, minimum_detectable_effect, required_questions  # noqa: E402


def fmt(x: float | int | None, kind: str) -> str:
    if x is None:
        return "none" if kind == "mde" else "> 100,000"
    return f"{x:.3f}" if kind == "mde" else f"{x:,}"


def main() -> None:
    data = json.loads(gzip.open(ROOT / "tests" / "fixtures" / "scifact_pairs" / "values.json.gz").read())
    values = data["values"]
    print("| pair (vs default) | metric | changed | sd of differences | questions for ±0.02 | ±0.05 "
          "| MDE at 100 / 300 / 1,000 |")
    print("|---|---|---:|---:|---:|---:|---|")
    for config in values:
        if config == "default":
            continue
        for metric in ("hit@10", "ndcg@10"):
            d = np.array(values[config][metric]) - np.array(values["default"][metric])
            model = Differences.observed(d)
            mdes = " / ".join(fmt(minimum_detectable_effect(model, n), "mde") for n in (100, 300, 1000))
            print(f"| {config} | {metric} | {np.mean(np.abs(d) > 1e-12):.0%} | {d.std():.3f} | "
                  f"{fmt(required_questions(model, 0.02), 'n')} | {fmt(required_questions(model, 0.05), 'n')} | "
                  f"{mdes} |", flush=True)


if __name__ == "__main__":
    main()
