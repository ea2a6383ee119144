"""Wall time of a sweep on the bundled SciFact example, cold (empty cache) and warm (issue 14).

Usage: python benchmarks/bench_sweep.py [--output DIR] [--config examples/scifact/sweep.toml]

Runs ``ragauge.sweep`` twice into the same folder: first with the folder's cache removed (every
index built, the MiniLM passage embedding included), then again with the cache warm (every index
loaded; every question still asked of every configuration, so latencies are measured afresh).
Prints the wall time of each, the part of the cold one spent embedding the corpus, the load
average around each, and the sweep's Markdown table (docs/sweep.md shows it). Needs the dense extra.
Run from the repository root with the Python where ragauge is installed.
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
from ragauge.reports.sweep import render_sweep  # noqa: E402


def one(config: Path, output: Path) -> tuple[float, ragauge.SweepResult, tuple[float, float]]:
    before = os.getloadavg()[0]
    start = time.perf_counter()
    result = ragauge.sweep(ROOT / "examples/scifact/golden.jsonl", "examples/scifact/corpus.jsonl.gz", config, output)
    return time.perf_counter() - start, result, (before, os.getloadavg()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=Path("/tmp/ragauge-bench-sweep"))
    parser.add_argument("--config", type=Path, default=ROOT / "examples/scifact/sweep.toml")
    args = parser.parse_args()
    os.chdir(ROOT)  # the specs name the corpus relative to the repository, as the command in docs/sweep.md does
    shutil.rmtree(args.output / "cache", ignore_errors=True)
    cold, result, cold_load = one(args.config, args.output)
    warm, again, warm_load = one(args.config, args.output)
    embedding = sum(i.open_seconds for i in result.indexes if i.kind == "dense")
    bm25 = sum(i.open_seconds for i in result.indexes if i.kind == "bm25")
    print(f"{len(result.rows)} configurations, {len(result.indexes)} indexes, "
          f"{result.meta['questions']['answerable']} questions, nproc {os.cpu_count()}")
    print("| sweep | wall s | indexes s | of which embedding s | runs and scoring s | load avg before / after |")
    print("|---|---:|---:|---:|---:|---|")
    for name, wall, r, load in (("cold", cold, result, cold_load), ("warm", warm, again, warm_load)):
        s = r.meta["seconds"]
        emb = f"{embedding:.1f}" if name == "cold" else "0 (cached)"
        print(f"| {name} | {wall:.1f} | {s['indexes']:.1f} | {emb} | {s['runs']:.1f} | {load[0]:.2f} / {load[1]:.2f} |")
    print(f"\ncold: BM25 indexes built in {bm25:.1f} s in all; warm: every index cached "
          f"({all(i.cached for i in again.indexes)})\n")
    print(render_sweep(again, "markdown"))


if __name__ == "__main__":
    main()
