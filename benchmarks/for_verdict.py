"""How many judgements ``golden pool --for-verdict`` needs to settle a comparison, against pool order (issue 30).

For pairs of SciFact configurations (the 300 test questions of ``examples/scifact``; runs made with
``ragauge run`` over its corpus, cached in ``benchmarks/data/verdict/``), each pair BASE, NEW:

1. the full-label verdict: ``ragauge.compare(BASE, NEW, golden=examples/scifact/golden.jsonl,
   metrics=[METRIC])``'s verdict;
2. the labels of every pooled document (the union of both runs' top ``--depth``) are hidden: the golden
   set keeps only the labels of documents outside the pool (``"relevant": null`` when none is left);
3. ``ragauge.pool_golden(hidden, for_verdict=(BASE, NEW), depth=DEPTH, verdict_metric=METRIC)`` pools
   it; every candidate's true grade is its label in the full golden set (0 when it has none);
4. the labels are revealed one at a time, (a) in pool order (question by question, each question's
   candidates best rank first: what ``golden judge`` serves without ``--for-verdict``) and (b) in the
   ``--for-verdict`` order, recomputed after each judgement as the judging page does
   (``VerdictState.order``); each counts the judgements until the page says the verdict is certain
   (``VerdictState.status().certain``), i.e. until a person would stop. Certainty only comes once
   both extremes agree, so the verdict reached is checked against the full-label one.

``--oracle`` adds the count of an order that knows every label in advance (greedy on the same rule);
``--settled`` follows both orders to the last pair and adds, for each, the judgements until the verdict
of the labels so far (unjudged pairs not relevant, as ``compare`` would read a partly judged set) is the
full-label one and stays so: a count a person cannot see while judging, given for comparison.

``--model-stop DELTA`` measures a stopping rule *not* built into ragauge (a design tried for issue 30 and
rejected, see benchmarks/README.md): stop once the verdict is the same in at least 1 - DELTA of draws of the
unjudged labels from a model, each pair relevant with its stratum's rate (stratum: the pair's rank in each
run, bucketed 1 / 2-3 / 4-k / deeper or absent), the rates drawn from Beta posteriors of the judged pairs
(prior: the pool's relevant share, weight 2). Checked every ``--check-every`` judgements in pool order, in
the --for-verdict order and, with ``--model-stop-seeds N``, in pool order with the questions shuffled by N
seeds, and, with ``--model-stop-random K``, in the --for-verdict order with every K-th judgement a uniformly
random unjudged candidate, the model learning from those only; the verdict reached is compared with the
full-label one.

Pool order's count is found by bisection on the number of labels revealed (the extremes only narrow as
labels come, so once certain a prefix stays certain; the count is checked at its two ends).

    python benchmarks/for_verdict.py              # every pair: ~1 h on 2 shared cores (load 3-5) once the runs exist
    python benchmarks/for_verdict.py --oracle --settled --json benchmarks/data/for_verdict.json   # several times that
    python benchmarks/for_verdict.py --pairs bm25:bm25-nostem
    python benchmarks/for_verdict.py --model-stop 0.05 --model-stop-only --model-stop-seeds 5   # ~1 h
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCIFACT = ROOT / "examples" / "scifact"
RUNS = Path(__file__).resolve().parent / "data" / "verdict"

# name -> the query string of its spec over the SciFact corpus (every run asks for 100 hits)
CONFIGS = {
    "bm25": "bm25:{corpus}",
    "bm25-k1.2-b0.75": "bm25:{corpus}?k1=1.2&b=0.75",
    "bm25-k0.9-b0.4": "bm25:{corpus}?k1=0.9&b=0.4",
    "bm25-nostem": "bm25:{corpus}?stemmer=none",
    "bm25-chunk100": "bm25:{corpus}?chunk_size=100",
    "dense-hash": "dense:{corpus}?embedder=hash",
    "hybrid-hash-rrf": "hybrid:{corpus}?embedder=hash",
    "dense-minilm": "dense:{corpus}",
}
PAIRS = [("bm25", n) for n in CONFIGS if n != "bm25"] + [("dense-minilm", "hybrid-hash-rrf")]
VERDICT_WORDS = {"better": 1, "worse": -1}


def make_runs(names: set[str]) -> None:
    """Each configuration's run, made once with ``ragauge run`` (kept in benchmarks/data/verdict/)."""
    RUNS.mkdir(parents=True, exist_ok=True)
    corpus = SCIFACT / "corpus.jsonl.gz"
    for name in sorted(names):
        out = RUNS / f"{name}.run.jsonl"
        if out.exists() and out.stat().st_size:
            continue
        spec = CONFIGS[name].format(corpus=corpus)
        print(f"[run] {name}: {spec}", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "ragauge", "run", str(SCIFACT / "golden.jsonl"), "--retriever", spec,
                        "--fetch", "100", "--on-error", "fail", "-o", str(out)], check=True)


def full_verdict(base: Path, new: Path, metric: str) -> tuple[int, str, float]:
    import ragauge

    delta = ragauge.compare(str(base), str(new), golden=str(SCIFACT / "golden.jsonl"), metrics=[metric]).metrics[metric]
    word = delta.verdict.split(" ")[0]
    return VERDICT_WORDS.get(word, 0), delta.verdict, delta.diff


def hidden_pool(base: Path, new: Path, metric: str, depth: int, tmp: Path) -> tuple[Any, dict[tuple[str, str], float]]:
    """The pool made for the verdict from the golden set with the pooled documents' labels hidden, and
    every candidate's true grade."""
    import ragauge

    golden = [json.loads(line) for line in (SCIFACT / "golden.jsonl").read_text(encoding="utf-8").splitlines()]
    full = ragauge.pool_golden(str(SCIFACT / "golden.jsonl"), runs=[str(base), str(new)], depth=depth).pool
    pooled = {q.id: {c.doc_id for c in q.candidates} | {j.doc_id for j in q.judged if j.within(depth)}
              for q in full.questions}
    truth: dict[str, dict[str, float]] = {}
    lines = []
    for row in golden:
        rel = row["relevant"]
        grades = {d: 1.0 for d in rel} if isinstance(rel, list) else {d: float(g) for d, g in rel.items()}
        truth[row["id"]] = grades
        kept = sorted(d for d in grades if d not in pooled[row["id"]])
        lines.append({**row, "relevant": kept or None})
    hidden = tmp / "hidden.jsonl"
    hidden.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    result = ragauge.pool_golden(str(hidden), for_verdict=[str(base), str(new)], depth=depth,
                                 verdict_metric=metric, output=tmp / "pool.jsonl")
    grades = {(q.id, c.doc_id): truth[q.id].get(c.doc_id, 0.0) for q in result.pool.questions for c in q.candidates}
    return result.pool, grades


def pool_order_count(pool: Any, grades: dict[tuple[str, str], float]) -> tuple[int, int]:
    """Judgements in pool order until certain (bisection on the prefix; see the module docstring), and
    the verdict reached."""
    from ragauge.curation.verdict import VerdictState

    sequence = pool_sequence(pool)

    def state(n: int) -> VerdictState:
        return VerdictState(pool, {item: grades[item] for item in sequence[:n]})

    if state(0).status().certain:
        return 0, state(0).status().low
    low, high = 0, len(sequence)  # not certain at low, certain at high (every label known)
    while high - low > 1:
        mid = (low + high) // 2
        if state(mid).status().certain:
            high = mid
        else:
            low = mid
    final = state(high).status()
    if not final.certain or state(high - 1).status().certain:
        raise SystemExit("pool order: bisection found no clean edge")
    return high, final.low


def pool_sequence(pool: Any) -> list[tuple[str, str]]:
    return [(q.id, c.doc_id) for q in pool.questions for c in q.candidates]


def now_verdict(state: Any) -> int:
    """The verdict of the labels so far, unjudged pairs not relevant (what eval and compare would say)."""
    import numpy as np

    from ragauge.curation.verdict import verdict_of

    return verdict_of(np.array([q.now for q in state.questions]), state.alpha)[0]


def settled(verdicts: list[int], truth: int) -> int:
    """How many judgements until the verdict of the labels so far is the full-label one and stays so."""
    wrong = [n for n, v in enumerate(verdicts) if v != truth]
    return wrong[-1] + 1 if wrong else 0


def pool_order_settled(pool: Any, grades: dict[tuple[str, str], float], truth: int) -> int:
    from ragauge.curation.verdict import VerdictState

    state = VerdictState(pool)
    verdicts = [now_verdict(state)]
    for item in pool_sequence(pool):
        state.set(item, grades[item])
        verdicts.append(now_verdict(state))
    return settled(verdicts, truth)


def verdict_order_count(pool: Any, grades: dict[tuple[str, str], float], truth: int,
                        to_the_end: bool) -> tuple[int, int, int | None, list[float]]:
    """Judgements in the --for-verdict order, recomputed after each one, until certain; the verdict
    reached; with ``to_the_end``, the order followed to the last pair and the count until the verdict of
    the labels so far settles on the full-label one (else None); and the seconds each step took."""
    from ragauge.curation.verdict import VerdictState

    state = VerdictState(pool)
    certain_at, reached = None, 0
    seconds, verdicts = [], [now_verdict(state)]
    for count in range(len(grades) + 1):
        status = state.status()
        if status.certain and certain_at is None:
            certain_at, reached = count, status.low
            if not to_the_end:
                break
        if count == len(grades):
            break
        start = time.perf_counter()
        item, _ = state.order()[0]
        state.set(item, grades[item])
        state.status()
        seconds.append(time.perf_counter() - start)
        verdicts.append(now_verdict(state))
    assert certain_at is not None
    return certain_at, reached, settled(verdicts, truth) if to_the_end else None, seconds


def _stratum(rank: Any, k: int) -> Any:
    import numpy as np

    r = np.where(rank < 0, np.iinfo(np.int64).max, rank)
    return np.select([r == 0, r < 3, r < k], [0, 1, 2], 3)


def model_verdict(state: Any, draws: int = 200, seed: int = 1, strength: float = 2.0,
                  learn: set[tuple[str, str]] | None = None) -> tuple[int, float]:
    """The verdict most of ``draws`` labellings of the unjudged pairs give, and its share: each pair
    relevant with its stratum's rate (module docstring), the rates drawn per labelling from Beta posteriors
    of the judged candidates (of those in ``learn`` only, when given; the prior's mean then their relevant
    share too); the verdicts by the betting test, as ``verdict_of`` reads it."""
    import zlib

    import numpy as np

    from ragauge.stats import betting

    k = int(state.spec.k)
    cells = [4 * _stratum(q.base, k) + _stratum(q.new, k) for q in state.questions]
    relevant, judged = np.zeros(16), np.zeros(16)
    for q, cell in zip(state.questions, cells):
        grades = q.grades[:len(q.candidate)]
        known = ~np.isnan(grades)
        if learn is not None:
            known &= np.array([(q.id, doc) in learn for doc in q.docs[:len(q.candidate)]], dtype=bool)
        np.add.at(judged, cell[:len(q.candidate)][known], 1)
        np.add.at(relevant, cell[:len(q.candidate)][known], grades[known] >= 1)
    p0 = state.relevant_share if learn is None else (relevant.sum() + 1.0) / (judged.sum() + 2.0)
    rates = np.random.default_rng(seed).beta(strength * p0 + relevant, strength * (1 - p0) + judged - relevant,
                                             size=(draws, 16))
    d = np.empty((draws, len(state.questions)))
    for i, (q, cell) in enumerate(zip(state.questions, cells)):
        if q.open is None or not len(q.open):
            d[:, i] = q.now
            continue
        u = np.random.default_rng([seed, zlib.crc32(q.id.encode())]).random((draws, len(q.open)))
        grades = np.repeat(np.nan_to_num(q.grades, nan=0.0)[None, :], draws, axis=0)
        grades[:, q.open] = np.where(u < rates[:, cell[q.open]], state.top, 0.0)
        d[:, i] = state._differences(q, grades)
    d[np.abs(d) <= 1e-12] = 0.0
    a = state.alpha
    up, down = (betting.batch_log_capital(d, -1.0, 1.0, 0.0, a / 2, side) for side in (True, False))
    p = np.minimum(1.0, 2.0 * np.exp(-np.maximum(up, down)))
    verdicts = np.where(p < a, np.sign(d.mean(axis=1)), 0).astype(int)
    verdicts[(d != 0).sum(axis=1) == 0] = 0
    values, counts = np.unique(verdicts, return_counts=True)
    top = int(np.argmax(counts))
    return int(values[top]), float(counts[top] / draws)


ORDER_KINDS = ("pool_order", "for_verdict", "shuffled", "for_verdict_random")


def order_kind(name: str) -> str:
    """The kind of a --model-stop order (:data:`ORDER_KINDS`) from its name: the name less its seed."""
    return name.rstrip("_0123456789")


def model_stop_counts(pool: Any, grades: dict[tuple[str, str], float], delta: float,
                      every: int, seeds: int = 0, random_every: int = 0, random_seeds: int = 1,
                      only: set[str] | None = None) -> dict[str, Any]:
    """Judgements until the model's share reaches 1 - ``delta`` (checked every ``every``) in pool order, in
    the --for-verdict order and (``seeds``) in pool order with the questions shuffled by each seed 1..seeds,
    and the verdict each reached. With ``random_every``, also the --for-verdict order with every
    ``random_every``-th judgement a uniformly random unjudged candidate (drawn by seeds 1..``random_seeds``), the
    model learning from those only.
    ``only``: the orders to follow, by name (pool_order, for_verdict, shuffled, for_verdict_random)."""
    import random

    from ragauge.curation.verdict import VERDICTS, VerdictState

    def shuffled(seed: int) -> list[tuple[str, str]]:
        questions = list(pool.questions)
        random.Random(seed).shuffle(questions)
        return [(q.id, c.doc_id) for q in questions for c in q.candidates]

    orders: list[tuple[str, list[tuple[str, str]] | None]] = [("pool_order", pool_sequence(pool)),
                                                              ("for_verdict", None)]
    orders += [(f"shuffled_{seed}", shuffled(seed)) for seed in range(1, seeds + 1)]
    if random_every:
        orders += [(f"for_verdict_random_{seed}", None) for seed in range(1, random_seeds + 1)]
    if only:
        orders = [(name, sequence) for name, sequence in orders if order_kind(name) in only]
    out: dict[str, Any] = {}
    for name, sequence in orders:
        state = VerdictState(pool)
        learn: set[tuple[str, str]] | None = set() if name.startswith("for_verdict_random") else None
        draw = random.Random(int(name.rsplit("_", 1)[1]) if learn is not None else 0)
        for count in range(len(grades) + 1):
            if count % every == 0 or count == len(grades):
                verdict, share = model_verdict(state, learn=learn)
                if share >= 1.0 - delta:
                    out[name] = {"judgements": count, "verdict": VERDICTS[verdict], "share": share}
                    break
            if sequence is not None:
                item = sequence[count]
            elif learn is not None and count % random_every == random_every - 1:
                item = draw.choice(sorted(set(grades) - set(state.labels)))
                learn.add(item)
            else:
                item = state.order()[0][0]
            state.set(item, grades[item])
    return out


def oracle_count(pool: Any, grades: dict[tuple[str, str], float]) -> int:
    """Judgements until certain for an order that knows every label in advance: each step takes the pair
    whose true label closes the largest share of the distances (the weights of the --for-verdict rule),
    greedily. Not a bound, but what knowing the labels buys this rule."""
    import numpy as np

    from ragauge.curation.verdict import VerdictState

    state = VerdictState(pool)
    count = 0
    while not state.status().certain:
        w_lo, w_hi = state.weights()
        best, pick = -1.0, None
        for q in state.questions:
            if q.open is None or q.moves is None or not len(q.open):
                continue
            items = [(q.id, q.docs[di]) for di in q.open.tolist()]
            relevant = np.array([grades[i] >= 1 for i in items])
            col = np.where(relevant, 2, 0)
            gain = w_lo * q.moves[np.arange(len(items)), col] + w_hi * q.moves[np.arange(len(items)), col + 1]
            j = int(np.argmax(gain))
            if gain[j] > best:
                best, pick = float(gain[j]), items[j]
        assert pick is not None
        state.set(pick, grades[pick])
        count += 1
    return count


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", help="BASE:NEW,... (default: every pair of the module's list)")
    ap.add_argument("--metric", default="ndcg@10")
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--oracle", action="store_true",
                    help="also count the judgements of an order that knows every label (greedy)")
    ap.add_argument("--settled", action="store_true",
                    help="also follow both orders to the last pair and count the judgements until the verdict of "
                         "the labels so far is the full-label one for good")
    ap.add_argument("--model-stop", type=float, metavar="DELTA",
                    help="also count the judgements until a model of the unjudged labels gives one verdict in "
                         "1 - DELTA of its draws (a rule ragauge does not use; module docstring)")
    ap.add_argument("--model-stop-only", action="store_true",
                    help="with --model-stop, skip the counts until certain (they take most of the time)")
    ap.add_argument("--model-stop-seeds", type=int, default=0, metavar="N",
                    help="with --model-stop, also judge in pool order with the questions shuffled by seeds 1..N")
    ap.add_argument("--model-stop-random", type=int, default=0, metavar="K",
                    help="with --model-stop, also the --for-verdict order with every K-th judgement a random "
                         "candidate, the model learning from those only")
    ap.add_argument("--model-stop-random-seeds", type=int, default=1, metavar="N",
                    help="with --model-stop-random, draw the random candidates with seeds 1..N (one order each)")
    ap.add_argument("--model-stop-orders", help="with --model-stop, only these orders (comma-separated: "
                                                    "pool_order, for_verdict, shuffled, for_verdict_random)")
    ap.add_argument("--check-every", type=int, default=10, help="with --model-stop, check every this many judgements")
    ap.add_argument("--json", type=Path, help="write every figure here")
    args = ap.parse_args()
    pairs = [tuple(p.split(":")) for p in args.pairs.split(",")] if args.pairs else PAIRS
    make_runs({n for pair in pairs for n in pair})
    rows = []
    for base_name, new_name in pairs:
        base, new = RUNS / f"{base_name}.run.jsonl", RUNS / f"{new_name}.run.jsonl"
        start = time.perf_counter()
        truth, words, diff = full_verdict(base, new, args.metric)
        with tempfile.TemporaryDirectory(prefix="for_verdict_") as t:
            pool, grades = hidden_pool(base, new, args.metric, args.depth, Path(t))
        from ragauge.curation.verdict import VERDICTS, VerdictState

        everything = VerdictState(pool, grades).status()
        if everything.now != truth:
            raise SystemExit(f"{base_name} -> {new_name}: the pool's full-label verdict {VERDICTS[everything.now]!r} "
                             f"is not compare's {words!r}")
        row = {"base": base_name, "new": new_name, "metric": args.metric, "diff": round(diff, 4),
               "verdict": words, "candidates": len(grades),
               "relevant_candidates": sum(g >= 1 for g in grades.values())}
        if not args.model_stop_only:
            in_pool, pool_verdict = pool_order_count(pool, grades)
            in_verdict, verdict_verdict, verdict_settled, seconds = verdict_order_count(pool, grades, truth,
                                                                                        args.settled)
            row |= {"pool_order": in_pool, "for_verdict": in_verdict,
                    "ratio": round(in_verdict / in_pool, 4) if in_pool else None,
                    "reached": [VERDICTS[pool_verdict], VERDICTS[verdict_verdict]],
                    "wrong": pool_verdict != truth or verdict_verdict != truth,
                    "step_ms_median": round(1000 * statistics.median(seconds), 1) if seconds else None}
        if args.oracle:
            row["oracle"] = oracle_count(pool, grades)
        if args.settled:
            row["settled"] = {"pool_order": pool_order_settled(pool, grades, truth), "for_verdict": verdict_settled}
        if args.model_stop is not None:
            model = model_stop_counts(pool, grades, args.model_stop, args.check_every, args.model_stop_seeds,
                                      args.model_stop_random, args.model_stop_random_seeds,
                                      set(args.model_stop_orders.split(",")) if args.model_stop_orders else None)
            for side in model.values():
                side["wrong"] = side["verdict"] != VERDICTS[truth]
            row["model_stop"] = model
        row["seconds"] = round(time.perf_counter() - start, 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
    ratios = [r["ratio"] for r in rows if r.get("ratio") is not None]
    summary = {"pairs": len(rows), "median_ratio": statistics.median(ratios) if ratios else None,
               "max_ratio": max(ratios) if ratios else None, "wrong": sum(r.get("wrong", False) for r in rows)}
    if args.model_stop is not None:
        summary["model_stop_wrong"] = {
            kind: [sum(side["wrong"] for name, side in r["model_stop"].items() if order_kind(name) == kind)
                   for r in rows]
            for kind in ORDER_KINDS}
    print(json.dumps(summary))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": summary}, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
