"""The competitors, each as a user would script it; one is run per fresh process by bench_eval.py.

    python benchmarks/runners.py {pytrec_eval,ir_measures,ranx,pure_python} QRELS RUN [--warm]

Prints one JSON line: ``{"values": {measure: mean}, "timings": {...}}`` with measures named
map, ndcg@10, mrr, precision@10, recall@100. Only the chosen library is imported.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

MEASURES = ("map", "ndcg@10", "mrr", "precision@10", "recall@100")


def read_dicts(qrels_path: str, run_path: str) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Both TREC files as the nested dicts pytrec_eval takes, parsed line by line in plain Python."""
    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_path) as fh:
        for line in fh:
            qid, _, doc, rel = line.split()
            qrels.setdefault(qid, {})[doc] = int(rel)
    run: dict[str, dict[str, float]] = {}
    with open(run_path) as fh:
        for line in fh:
            qid, _, doc, _, score, _ = line.split()
            run.setdefault(qid, {})[doc] = float(score)
    return qrels, run


def run_pytrec_eval(qrels_path: str, run_path: str) -> dict[str, Any]:
    import pytrec_eval

    t0 = time.perf_counter()
    qrels, run = read_dicts(qrels_path, run_path)
    t1 = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "recip_rank", "P.10", "recall.100"})
    per_query = evaluator.evaluate(run)
    t2 = time.perf_counter()
    keys = {"map": "map", "ndcg@10": "ndcg_cut_10", "mrr": "recip_rank", "precision@10": "P_10",
            "recall@100": "recall_100"}
    n = len(per_query)
    values = {m: sum(v[k] for v in per_query.values()) / n if n else 0.0 for m, k in keys.items()}
    return {"values": values, "timings": {"parse": t1 - t0, "evaluate": t2 - t1}}


def run_ir_measures(qrels_path: str, run_path: str) -> dict[str, Any]:
    import ir_measures
    from ir_measures import AP, RR, P, R, nDCG

    t0 = time.perf_counter()
    qrels = ir_measures.read_trec_qrels(qrels_path)
    run = ir_measures.read_trec_run(run_path)
    measures = [AP, nDCG @ 10, RR, P @ 10, R @ 100]
    agg = ir_measures.calc_aggregate(measures, qrels, run)  # reading is lazy: parse + evaluate
    t1 = time.perf_counter()
    names = dict(zip(measures, MEASURES))
    return {"values": {names[m]: float(v) for m, v in agg.items()}, "timings": {"parse+evaluate": t1 - t0}}


def run_ranx(qrels_path: str, run_path: str, warm: bool = False) -> dict[str, Any]:
    from ranx import Qrels, Run, evaluate

    t0 = time.perf_counter()
    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    t1 = time.perf_counter()
    metrics = list(MEASURES)
    values = evaluate(qrels, run, metrics)  # first call in the process: numba JIT, or loading its disk cache
    t2 = time.perf_counter()
    timings = {"parse": t1 - t0, "evaluate_first": t2 - t1}
    if warm:  # only in the separate warm-up measurement, never in the timed whole-process runs
        t3 = time.perf_counter()
        evaluate(qrels, run, metrics)
        timings["evaluate_warm"] = time.perf_counter() - t3
    return {"values": {m: float(values[m]) for m in metrics}, "timings": timings}


def run_pure_python(qrels_path: str, run_path: str) -> dict[str, Any]:
    """No library at all: both files parsed line by line, each question ranked as trec_eval ranks
    it (score descending, ties by docno descending) and the five measures in plain Python, over
    the questions both files hold (as pytrec_eval averages). The floor of start-up cost."""
    import math

    t0 = time.perf_counter()
    qrels, run = read_dicts(qrels_path, run_path)
    t1 = time.perf_counter()
    sums = dict.fromkeys(MEASURES, 0.0)
    n = 0
    for qid, scored in run.items():
        judged = qrels.get(qid)
        if judged is None:
            continue
        n += 1
        ranked = sorted(scored, key=lambda d: (scored[d], d), reverse=True)
        relevant = sum(1 for g in judged.values() if g >= 1)
        if not relevant:
            continue
        found, ap, dcg, first = 0, 0.0, 0.0, 0
        for rank, doc in enumerate(ranked, start=1):
            grade = judged.get(doc, 0)
            if rank <= 10 and grade > 0:
                dcg += grade / math.log2(rank + 1)
            if grade >= 1:
                found += 1
                ap += found / rank
                first = first or rank
                if rank <= 10:
                    sums["precision@10"] += 0.1
                if rank <= 100:
                    sums["recall@100"] += 1 / relevant
        ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:10]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        sums["map"] += ap / relevant
        sums["ndcg@10"] += dcg / idcg if idcg else 0.0
        sums["mrr"] += 1 / first if first else 0.0
    t2 = time.perf_counter()
    return {"values": {m: v / n if n else 0.0 for m, v in sums.items()},
            "timings": {"parse": t1 - t0, "evaluate": t2 - t1}}


RUNNERS = {"pytrec_eval": run_pytrec_eval, "ir_measures": run_ir_measures, "ranx": run_ranx,
           "pure_python": run_pure_python}


def main() -> None:
    tool, qrels_path, run_path, *flags = sys.argv[1:]
    kwargs = {"warm": True} if "--warm" in flags else {}
    print(json.dumps(RUNNERS[tool](qrels_path, run_path, **kwargs)))


if __name__ == "__main__":
    main()
