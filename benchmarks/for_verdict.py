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

Pool order's count is found by bisection on the number of labels revealed (the extremes only narrow as
labels come, so once certain a prefix stays certain; the count is checked at its two ends).

    python benchmarks/for_verdict.py              # every pair: ~1 h on 2 shared cores (load 3-5) once the runs exist
    python benchmarks/for_verdict.py --oracle --settled --json benchmarks/data/for_verdict.json   # several times that
    python benchmarks/for_verdict.py --pairs bm25:bm25-nostem
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
        in_pool, pool_verdict = pool_order_count(pool, grades)
        in_verdict, verdict_verdict, verdict_settled, seconds = verdict_order_count(pool, grades, truth, args.settled)
        row = {"base": base_name, "new": new_name, "metric": args.metric, "diff": round(diff, 4),
               "verdict": words, "candidates": len(grades),
               "relevant_candidates": sum(g >= 1 for g in grades.values()),
               "pool_order": in_pool, "for_verdict": in_verdict,
               "ratio": round(in_verdict / in_pool, 4) if in_pool else None,
               "reached": [VERDICTS[pool_verdict], VERDICTS[verdict_verdict]],
               "wrong": pool_verdict != truth or verdict_verdict != truth,
               "step_ms_median": round(1000 * statistics.median(seconds), 1) if seconds else None}
        if args.oracle:
            row["oracle"] = oracle_count(pool, grades)
        if args.settled:
            row["settled"] = {"pool_order": pool_order_settled(pool, grades, truth), "for_verdict": verdict_settled}
        row["seconds"] = round(time.perf_counter() - start, 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
    ratios = [r["ratio"] for r in rows if r["ratio"] is not None]
    summary = {"pairs": len(rows), "median_ratio": statistics.median(ratios) if ratios else None,
               "max_ratio": max(ratios) if ratios else None, "wrong": sum(r["wrong"] for r in rows)}
    print(json.dumps(summary))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": summary}, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
