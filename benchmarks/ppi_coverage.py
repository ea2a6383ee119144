"""Coverage and width of prediction-powered intervals on SciFact (issue 30).

The population is SciFact's 300 test questions with the BM25 run of ``examples/scifact``; the metric is
nDCG@10 per question; the target is its mean over all 300 questions from the human labels (the value a
fully labelled golden set gives). In each replicate a random ``n`` questions keep their human labels, the
other 300 - n are unlabelled, and an assessor labels every (question, document) pair of the run's top 10:

- ``minilm``: the real labels of ``golden assess --assessor minilm`` (calibrated on all human labels,
  computed once and cached in ``benchmarks/data/``), the same in every replicate;
- ``kappa 0.3 / 0.5 / 0.7``: simulated assessors, drawn anew in every replicate: a pair the humans call
  relevant is called relevant with chance p + kappa (1 - p), another with chance p (1 - kappa), p the
  share of relevant pairs, so the assessor's share of relevant pairs is the humans' and its expected
  Cohen's kappa with them is ``kappa`` (the realised mean is reported).

Yhat is the question's nDCG@10 with the assessor's labels (its ideal ranking from the pairs it labelled,
as an evaluation with automatic labels of the top k computes it), checked against ragauge's own nDCG on
the real assessor's labels. Per cell: the coverage of each method's interval with its Monte-Carlo
standard error, the median width ratio PPI / human-only (the human-only interval of the same method on
the same n questions), the share of replicates where PPI is wider, and the median effective number of
human labels over n. ``golden-set``: ``ppi_mean(..., target="golden-set")``, the interval ``eval
--auto-labels`` reports (the golden set's own mean, ``stats.finite``), its width against the human-only
interval for the same mean (median, share wider, largest) and against the plain human-only betting
interval of the same n questions (what they show scored alone). ``--difference`` does the same for the
paired difference BM25 - BM25 without
stemming (``bm25-nostem.run.jsonl``), the assessor labelling the union of both runs' top 10.

    python benchmarks/ppi_coverage.py --replicates 500 --sizes 15,30,60
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SCIFACT = ROOT / "examples" / "scifact"
DATA = Path(__file__).resolve().parent / "data"
K = 10
METHODS = ("clt", "t", "betting")
GOLDEN = "golden-set"
"""``target="golden-set"``: the betting interval for the golden set's own mean (stats.finite)."""
PLAIN = "golden-set vs plain human"


def per_question(run: str, golden: Path | None = None) -> tuple[list[str], np.ndarray]:
    import ragauge

    e = ragauge.evaluate_run(str(golden or SCIFACT / "golden.jsonl"), str(SCIFACT / run), metrics=[f"ndcg@{K}"])
    return list(e.row_ids), np.asarray(e.column(f"ndcg@{K}"), dtype=np.float64)


def top_docs(run: str, ids: list[str]) -> list[list[str]]:
    import ragauge

    r = ragauge.read_run(str(SCIFACT / run))
    return [[h.doc_id or "" for h in r.result(q).hits[:K]] for q in ids]


def ndcg(labels: np.ndarray) -> np.ndarray:
    """nDCG@K per question (rows) of 0/1 (or graded) labels of the top K in rank order, ideal from the
    labels seen (the assessor knows only the pairs it labelled)."""
    discount = 1.0 / np.log2(np.arange(2, K + 2))
    dcg = (labels * discount).sum(axis=1)
    ideal = (-np.sort(-labels, axis=1) * discount).sum(axis=1)
    return np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)


def minilm_labels(ids: list[str], docs: list[list[str]]) -> np.ndarray:
    """The real assessor's 0/1 labels of each question's top K (``golden assess --assessor minilm``)."""
    from ragauge.api.golden import assess_golden
    from ragauge.formats.autolabels import read_auto_labels

    out = DATA / "scifact-minilm-auto.jsonl"
    if not out.is_file():
        DATA.mkdir(parents=True, exist_ok=True)
        print("assessing SciFact's BM25 top 10 with minilm (~3 min, once)...", file=sys.stderr)
        assess_golden(SCIFACT / "golden.jsonl", [SCIFACT / "bm25.run.jsonl"], SCIFACT / "corpus.jsonl.gz", "minilm",
                      out, k=K)
    grades = read_auto_labels(out).grades()
    return np.array([[grades.get((q, d), 0.0) for d in row] + [0.0] * (K - len(row)) for q, row in zip(ids, docs)])


def human_labels(ids: list[str], docs: list[list[str]]) -> np.ndarray:
    from ragauge.formats.golden import load_golden

    golden = load_golden(SCIFACT / "golden.jsonl").by_id
    return np.array([[float(golden[q].relevant.get(d, 0) >= 1) for d in row] + [0.0] * (K - len(row))
                     for q, row in zip(ids, docs)])


def simulated(truth: np.ndarray, kappa: float, rng: np.random.Generator) -> np.ndarray:
    p = float(truth.mean())
    chance = np.where(truth > 0, p + kappa * (1.0 - p), p * (1.0 - kappa))
    return (rng.random(truth.shape) < chance).astype(np.float64)


def kappa_of(a: np.ndarray, b: np.ndarray) -> float:
    from ragauge.stats.kappa import cohen_kappa

    return float(cohen_kappa(list(a.ravel()), list(b.ravel())).value or 0.0)


def cell(y: np.ndarray, yhat_of: object, n: int, replicates: int, seed: int, low: float, high: float,
         truth_labels: np.ndarray | None) -> dict[str, object]:
    from ragauge.stats.ppi import ppi_mean

    rng = np.random.default_rng(seed)
    target = float(y.mean())
    total = len(y)
    hits = {m: 0 for m in (*METHODS, GOLDEN)}
    ratios: dict[str, list[float]] = {m: [] for m in (*METHODS, GOLDEN, PLAIN)}
    gains: list[float] = []
    gains_own: list[float] = []
    kappas: list[float] = []
    for _ in range(replicates):
        yhat, labels = yhat_of(rng)  # type: ignore[operator]
        if truth_labels is not None and labels is not None:
            kappas.append(kappa_of(truth_labels, labels))
        pick = rng.permutation(total)
        lab, unl = pick[:n], pick[n:]
        for m in METHODS:
            est = ppi_mean(y[lab], yhat[lab], yhat[unl], method=m, low=low, high=high)
            hits[m] += est.interval[0] <= target <= est.interval[1]
            ratios[m].append(est.width_ratio)
        gains.append(est.effective_n / n)
        own = ppi_mean(y[lab], yhat[lab], yhat[unl], low=low, high=high, target="golden-set")
        hits[GOLDEN] += own.interval[0] <= target <= own.interval[1]
        ratios[GOLDEN].append(own.width_ratio)  # against the human-only interval for the same mean
        human = est.classical_interval  # the human-only betting interval ragauge shows for these n alone
        ratios[PLAIN].append((own.interval[1] - own.interval[0]) / (human[1] - human[0]))
        gains_own.append(own.effective_n / n)
    out: dict[str, object] = {"n": n, "replicates": replicates}
    for m in METHODS:
        c = hits[m] / replicates
        r = np.array(ratios[m])
        out[m] = {"coverage": c, "mc_se": math.sqrt(c * (1 - c) / replicates),
                  "median_width_ratio": float(np.median(r)), "wider_share": float(np.mean(r > 1.0))}
    c = hits[GOLDEN] / replicates
    own, plain = np.array(ratios[GOLDEN]), np.array(ratios[PLAIN])
    out[GOLDEN] = {"coverage": c, "mc_se": math.sqrt(c * (1 - c) / replicates),
                   "median_width_ratio": float(np.median(own)), "wider_share": float(np.mean(own > 1.0)),
                   "max_width_ratio": float(own.max()), "median_effective_gain": float(np.median(gains_own)),
                   "median_ratio_to_plain_human": float(np.median(plain)),
                   "wider_than_plain_human_share": float(np.mean(plain > 1.0)),
                   "max_ratio_to_plain_human": float(plain.max())}
    out["median_effective_gain"] = float(np.median(gains))
    if kappas:
        out["realised_kappa"] = float(np.mean(kappas))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=500)
    parser.add_argument("--sizes", default="15,30,60")
    parser.add_argument("--kappas", default="0.3,0.5,0.7")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--difference", action="store_true", help="the paired difference BM25 - BM25 no stemming")
    parser.add_argument("-o", "--output", type=Path, default=DATA / "ppi_coverage.json")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    kappas = [float(k) for k in args.kappas.split(",")]
    started = time.time()
    ids, y = per_question("bm25.run.jsonl")
    docs = top_docs("bm25.run.jsonl", ids)
    truth = human_labels(ids, docs)
    real = minilm_labels(ids, docs)
    # the numpy nDCG of this script is ragauge's, on the real assessor's labels
    auto_golden = DATA / "scifact-minilm-golden.jsonl"
    auto_golden.write_text("".join(json.dumps({"id": q, "query": "x", "relevant": [d for d, g in zip(row, lab) if g]})
                                   + "\n" for q, row, lab in zip(ids, docs, real)), encoding="utf-8")
    answered, engine = per_question("bm25.run.jsonl", auto_golden)  # questions with a relevant label only
    rows = [ids.index(q) for q in answered]
    assert np.allclose(engine, ndcg(real)[rows]), "the simulation's nDCG is not ragauge's"
    low, high = 0.0, 1.0
    if args.difference:
        ids_b, y_b = per_question("bm25-nostem.run.jsonl")
        assert ids_b == ids
        docs_b = top_docs("bm25-nostem.run.jsonl", ids)
        truth_b = human_labels(ids, docs_b)
        y = y - y_b
        low = -1.0
    results: list[dict[str, object]] = []
    assessors: list[tuple[str, object, np.ndarray | None]] = []
    if args.difference:  # one label per (question, document) of the union of both runs' top K
        union = sorted({(q, d) for q, ra, rb in zip(ids, docs, docs_b) for d in (*ra, *rb)})
        where = {p: i for i, p in enumerate(union)}
        flat = np.zeros(len(union))
        for q, ra, rb, ta, tb in zip(ids, docs, docs_b, truth, truth_b):
            for d, t in (*zip(ra, ta), *zip(rb, tb)):
                flat[where[(q, d)]] = t
        ia = np.array([[where[(q, d)] for d in row] for q, row in zip(ids, docs)])
        ib = np.array([[where[(q, d)] for d in row] for q, row in zip(ids, docs_b)])
        for kappa in kappas:
            def draw(rng: np.random.Generator, kappa: float = kappa) -> tuple[np.ndarray, np.ndarray]:
                labels = simulated(flat, kappa, rng)
                return ndcg(labels[ia]) - ndcg(labels[ib]), labels
            assessors.append((f"kappa {kappa}", draw, flat))
    else:
        assessors.append(("minilm", lambda rng: (ndcg(real), None), None))
        for kappa in kappas:
            def draw_one(rng: np.random.Generator, kappa: float = kappa) -> tuple[np.ndarray, np.ndarray]:
                labels = simulated(truth, kappa, rng)
                return ndcg(labels), labels
            assessors.append((f"kappa {kappa}", draw_one, truth))
    for name, yhat_of, truth_labels in assessors:
        for n in sizes:
            row = cell(y, yhat_of, n, args.replicates, args.seed + n, low, high, truth_labels)
            row["assessor"] = name
            results.append(row)
            print(json.dumps(row), flush=True)
    report = {"target": float(y.mean()), "metric": f"ndcg@{K}", "questions": len(y), "difference": args.difference,
              "realised_kappa_minilm": kappa_of(truth, real), "seconds": round(time.time() - started, 1),
              "cells": results}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"target {report['target']:.4f}; minilm kappa on the top 10 {report['realised_kappa_minilm']:.3f}; "
          f"{report['seconds']} s; wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
