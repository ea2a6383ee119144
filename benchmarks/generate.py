"""Generate synthetic benchmark data with a fixed seed.

Two scales, three files each (a TREC run, TREC qrels, and the same judgements as a ragauge
golden set):

* ``msmarco``: MS MARCO passage dev (small) scale: 6,980 queries x 1,000 hits, doc ids drawn
  from an 8.8M-passage id space, ~1.07 relevant passages per query (binary), ~60% of the
  queries with a relevant passage somewhere in the top 1000, skewed toward the top ranks.
* ``golden``: a RAG golden-set scale: 500 queries x 20 hits over a 20k-document corpus,
  1-3 relevant documents per query.

Scores descend within each query and are rounded, so a few tie; tied hits are written in
random order (as an ANN index would return them), which is not trec_eval's tie order
(docno descending), so every tool has to re-rank them.

``--repeat N`` writes the scale N times over into one set of files named ``<scale>x<N>.*``
(copy r's query ids are the originals plus r x 10,000,000, so every query id is distinct): a run
N times larger with the same per-query statistics, for the memory benchmark (``bench_memory.py``).

Usage:
    python benchmarks/generate.py                  # writes benchmarks/data/
    python benchmarks/generate.py --out /tmp/bench --scales golden
    python benchmarks/generate.py --out /tmp/big --scales msmarco --repeat 30   # ~9 GB run file
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEED = 20240611


@dataclass(frozen=True)
class Scale:
    name: str
    queries: int
    depth: int
    doc_space: int
    qid_space: int
    rel_counts: tuple[int, ...]  # possible numbers of relevant docs per query ...
    rel_probs: tuple[float, ...]  # ... and their probabilities
    p_retrieved: float  # chance that a given relevant doc is in the run
    rank_skew: float  # rank = depth ** (U ** skew): larger skews toward rank 1
    score_top: float
    score_sd: float
    score_gap: tuple[float, float]  # mean score gap at the top and at the bottom of a ranking
    decimals: int
    tag: str


SCALES = {
    "msmarco": Scale("msmarco", 6980, 1000, 8_841_823, 1_102_400, (1, 2, 3, 4), (0.94, 0.05, 0.008, 0.002),
                     0.585, 1.8, 22.0, 2.5, (0.03, 0.004), 3, "bm25-synthetic"),
    "golden": Scale("golden", 500, 20, 20_000, 100_000, (1, 2, 3), (0.6, 0.3, 0.1),
                    0.6, 1.5, 0.82, 0.04, (0.01, 0.004), 3, "dense-synthetic"),
}


def _unique_rows(rng: np.random.Generator, n: int, depth: int, space: int) -> np.ndarray:
    """n rows of depth distinct doc ids each (ids may repeat across rows)."""
    docs = rng.integers(0, space, size=(n, depth), dtype=np.int64)
    while True:
        s = np.sort(docs, axis=1)
        bad = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
        if not len(bad):
            return docs
        docs[bad] = rng.integers(0, space, size=(len(bad), depth), dtype=np.int64)


QID_STRIDE = 10_000_000  # above every scale's qid_space: copies of a scale never share a query id


def generate(scale: Scale, out: Path, seed: int = SEED, repeat: int = 1) -> dict[str, object]:
    rng = np.random.default_rng([seed, list(SCALES).index(scale.name)])
    n, depth = scale.queries, scale.depth

    qids = rng.choice(scale.qid_space, size=n, replace=False)  # query order as an engine would emit them
    docs = _unique_rows(rng, n, depth, scale.doc_space)

    # Relevant docs: fresh ids; each is placed in the run with probability p_retrieved at a rank
    # skewed toward the top, else it is missing from the run.
    n_rel = rng.choice(scale.rel_counts, size=n, p=scale.rel_probs)
    qrels_q: list[int] = []
    qrels_d: list[int] = []
    for i in range(n):
        row = set(docs[i].tolist())
        rels: list[int] = []
        while len(rels) < n_rel[i]:
            d = int(rng.integers(0, scale.doc_space))
            if d not in rels:
                rels.append(d)
        used_ranks: set[int] = set()
        for d in rels:
            if d in row:  # already retrieved by chance
                continue
            if rng.random() < scale.p_retrieved:
                r = int(depth ** (rng.random() ** scale.rank_skew)) - 1
                while r in used_ranks:
                    r = (r + 1) % depth
                used_ranks.add(r)
                row.discard(int(docs[i, r]))
                docs[i, r] = d
                row.add(d)
        qrels_q += [int(qids[i])] * len(rels)
        qrels_d += rels

    # Scores: descending, gaps shrinking down the ranking, rounded so some neighbours tie.
    gaps_mean = np.geomspace(scale.score_gap[0], scale.score_gap[1], depth - 1)
    gaps = rng.exponential(gaps_mean, size=(n, depth - 1))
    top = scale.score_top + rng.normal(0, scale.score_sd, size=(n, 1))
    scores = np.round(np.hstack([top, top - np.cumsum(gaps, axis=1)]), scale.decimals)

    out.mkdir(parents=True, exist_ok=True)
    name = scale.name if repeat == 1 else f"{scale.name}x{repeat}"
    paths = {k: out / f"{name}.{k}" for k in ("run.trec", "qrels.txt", "golden.jsonl")}
    for path in paths.values():
        path.unlink(missing_ok=True)
    for r in range(repeat):
        shift = r * QID_STRIDE
        _write_run(paths["run.trec"], qids + shift, docs, scores, scale.tag)
        _write_qrels(paths["qrels.txt"], [q + shift for q in qrels_q], qrels_d)
        _write_golden(paths["golden.jsonl"], qids + shift, [q + shift for q in qrels_q], qrels_d)

    # Facts about what was written (the tie count is over adjacent hits of the same query).
    in_run = _in_run(qids, docs, qrels_q, qrels_d)
    return {
        "queries": n * repeat, "hits": n * depth * repeat, "qrels": len(qrels_q) * repeat,
        "rel_per_query": round(len(qrels_q) / n, 4),
        "queries_with_rel_in_run": round(float(in_run.any(axis=1).mean()), 4),
        "queries_with_rel_in_top10": round(float(in_run[:, :10].any(axis=1).mean()), 4),
        "tied_adjacent_pairs": int((scores[:, 1:] == scores[:, :-1]).sum()) * repeat,
        "bytes": {k: p.stat().st_size for k, p in paths.items()},
    }


def _in_run(qids: np.ndarray, docs: np.ndarray, qrels_q: list[int], qrels_d: list[int]) -> np.ndarray:
    key = (np.repeat(qids.astype(np.int64), docs.shape[1]) << 24) | docs.ravel()
    rel = (np.asarray(qrels_q, np.int64) << 24) | np.asarray(qrels_d, np.int64)
    return np.isin(key, rel).reshape(docs.shape)


def _write_run(path: Path, qids: np.ndarray, docs: np.ndarray, scores: np.ndarray, tag: str) -> None:
    """Append the run's lines to ``path``."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    n, depth = docs.shape
    m = n * depth
    table = pa.table({
        "qid": pa.array(np.repeat(qids, depth)).cast(pa.string()),
        "q0": pa.DictionaryArray.from_arrays(np.zeros(m, np.int8), pa.array(["Q0"])).cast(pa.string()),
        "docno": pa.array(docs.ravel()).cast(pa.string()),
        "rank": pa.array(np.tile(np.arange(1, depth + 1, dtype=np.int32), n)),
        "score": pa.array(scores.ravel()),
        "tag": pa.DictionaryArray.from_arrays(np.zeros(m, np.int8), pa.array([tag])).cast(pa.string()),
    })
    with pa.OSFile(str(path), "ab") as sink:
        pcsv.write_csv(table, sink, pcsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"))


def _write_qrels(path: Path, qrels_q: list[int], qrels_d: list[int]) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.writelines(f"{q} 0 {d} 1\n" for q, d in zip(qrels_q, qrels_d))


def _write_golden(path: Path, qids: np.ndarray, qrels_q: list[int], qrels_d: list[int]) -> None:
    rel: dict[int, list[str]] = {}
    for q, d in zip(qrels_q, qrels_d):
        rel.setdefault(q, []).append(str(d))
    with open(path, "a", encoding="utf-8") as fh:
        for q in qids.tolist():
            fh.write(json.dumps({"id": str(q), "query": f"q {q}", "relevant": rel.get(q, [])}) + "\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=HERE / "data", help="data folder (default: benchmarks/data/)")
    parser.add_argument("--scales", default=",".join(SCALES), help=f"comma-separated subset of {','.join(SCALES)}")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--repeat", type=int, default=1,
                        help="write each scale N times over with distinct query ids (files <scale>xN.*)")
    args = parser.parse_args(argv)
    for name in [s.strip() for s in args.scales.split(",") if s.strip()]:
        start = time.perf_counter()
        facts = generate(SCALES[name], args.out, args.seed, max(1, args.repeat))
        print(f"{name}: {json.dumps(facts)} ({time.perf_counter() - start:.1f}s)")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
