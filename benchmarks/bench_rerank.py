"""The latency a reranker adds on the bundled SciFact example, measured by a sweep (issue 14).

Usage: python benchmarks/bench_rerank.py [--output DIR] [--cache DIR] [--depth 100]

Runs ``ragauge.sweep`` over SciFact's 300 questions with four configurations: BM25 alone (the
reference), and BM25's top ``--depth`` reranked by (1) MiniLM bi-encoder rescoring, (2) a tiny
cross-encoder made on the spot (tests/retrieve/tiny_models.py: the real MiniLM word-piece vocabulary,
so tokenization costs what a BERT cross-encoder's does, but a one-layer network of width 32, so the
model's own cost is nearly nil: it measures ragauge's cross-encoder path, not a real model) and (3) a
``python:`` reranker counting shared words. Prints, per configuration, the whole call's p50/p95 and
the first stage's and the reranking's share as the sweep records them (``rerank_ms``), with the load
average around the run. ``--cache`` copies a sweep cache folder in first (e.g. the one
``bench_sweep.py`` leaves), so the MiniLM passage embeddings need not be rebuilt (about 6 minutes on
2 cores). Needs the dense extra and the ``onnx`` package (the test extra).
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
sys.path.insert(0, str(ROOT))

import ragauge  # noqa: E402
from tests.retrieve.tiny_models import make_cross_encoder  # noqa: E402

OVERLAP = "def score(query, candidates):\n    q = set(query.lower().split())\n" \
          "    return [len(q & set(c.lower().split())) for c in candidates]\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=Path("/tmp/ragauge-bench-rerank"))
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--depth", type=int, default=100)
    args = parser.parse_args()
    os.chdir(ROOT)
    args.output.mkdir(parents=True, exist_ok=True)
    if args.cache is not None and not (args.output / "cache").exists():
        shutil.copytree(args.cache, args.output / "cache")
    vocab = (ROOT / "src/ragauge/models/data/minilm-vocab.txt").read_text(encoding="utf-8").split("\n")
    model = args.output / "tiny-cross-encoder"
    make_cross_encoder(model, [w for w in vocab if w and w not in ("[PAD]", "[UNK]", "[CLS]", "[SEP]")], dim=32)
    (args.output / "overlap.py").write_text(OVERLAP, encoding="utf-8")
    depth = args.depth
    plan = {"sweep": {"metrics": ["ndcg@10", "recall@10"], "fetch": depth}, "config": [
        {"name": "bm25", "retriever": "bm25"},
        {"name": f"bm25 + minilm top {depth}", "retriever": "bm25", "rerank": "minilm", "rerank_depth": depth},
        {"name": f"bm25 + tiny cross-encoder top {depth}", "retriever": "bm25",
         "rerank": f"cross-encoder:{model}", "rerank_depth": depth},
        {"name": f"bm25 + python overlap top {depth}", "retriever": "bm25",
         "rerank": f"python:{args.output / 'overlap.py'}:score", "rerank_depth": depth},
    ]}
    before = os.getloadavg()[0]
    start = time.perf_counter()
    result = ragauge.sweep(ROOT / "examples/scifact/golden.jsonl", "examples/scifact/corpus.jsonl.gz", plan,
                           args.output)
    wall = time.perf_counter() - start
    print(f"{len(result.rows)} configurations, {result.meta['questions']['answerable']} questions, fetch {depth}, "
          f"nproc {os.cpu_count()}, wall {wall:.0f} s, load avg {before:.2f} / {os.getloadavg()[0]:.2f}, "
          f"indexes cached: {all(i.cached for i in result.indexes)}")
    print("| configuration | nDCG@10 | call p50 ms | call p95 ms | first stage p50 ms | rerank p50 ms "
          "| rerank p95 ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in result.rows:
        lat, rr = row.latency_ms or {}, row.rerank_ms
        cells = ["", "", ""] if rr is None else [f"{rr['first_p50']:.1f}", f"{rr['p50']:.1f}", f"{rr['p95']:.1f}"]
        print(f"| {row.name} | {row.means['ndcg@10']:.3f} | {lat.get('p50', 0):.1f} | {lat.get('p95', 0):.1f} | "
              + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
