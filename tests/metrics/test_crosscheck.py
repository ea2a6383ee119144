"""Cross-checks of ragauge's metric engine against independent implementations.

* The trec_eval path (``evaluate_trec``) against pytrec_eval (trec_eval 9.x compiled as a Python
  extension) on random qrels and runs with heavy score ties, -M depth cuts, -l relevance levels,
  -c, queries only in the run and judged queries missing from the run.
* ``evaluate_run`` (the RAG path: hit order is the ranking, duplicate hits folded first-seen)
  against ir_measures (pytrec_eval provider for most measures, its own ``msmarco`` provider for
  RR and RR@k), against a small textbook implementation written here, and, when installed,
  against ranx (numba kernels, no code shared with trec_eval).
* Hand-computed examples stating the contract.

Semantics checked by hand before writing the generators (pytrec_eval-terrier 0.5, which embeds
trec_eval 9.x):

* ties in score are broken by docno descending (strcmp on the UTF-8 bytes), as in trec_eval 10;
* queries in the run but not in the qrels are ignored; a judged query missing from the run is
  not reported (pytrec_eval has no -c: the tests build -c's zero rows themselves);
* pytrec_eval has no -M: the tests cut each query to its top M in trec_eval's order themselves;
* trec_eval 9 keeps scores as C float, trec_eval 10 (and ragauge) as double: random scores are
  drawn exactly representable in 32 bits (see strategies.WIDE_SCORES);
* NEGATIVE GRADES BREAK pytrec_eval: with a grade of -1 in the qrels, its values become
  nondeterministic (the same call gives different results) and evaluate() eventually hangs
  (observed within a few hundred calls; memory corruption in the embedded trec_eval 9.x is the
  likely cause). trec_eval 10 (form_res_rels.c) reads a negative grade as "in the pool but not
  judged": not counted in any relevance level, not relevant, no nDCG gain (get_gain finds no
  level), still retrieved; for every measure checked here that is exactly grade 0. So ragauge
  gets the negative grades and pytrec_eval (and ir_measures, ranx) the same judgements with
  negative grades replaced by 0, and the values must agree.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import ir_measures
import numpy as np
import pyarrow as pa
import pytest
import pytrec_eval
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from ir_measures import AP, RR, Judged, P, R, Rprec, Success, nDCG

from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.data.hits import Hit, QueryResult
from ragauge.data.run import Run
from ragauge.errors import InputError
from ragauge.evaluation.evaluate import evaluate_run
from ragauge.formats.trec import Qrels, TrecRun
from ragauge.treceval.runner import TrecEvalOptions, evaluate_trec, trec_eval

from .strategies import (
    CONTIGUOUS_LAYOUTS,
    INTERLEAVED_LAYOUTS,
    TrecCase,
    eval_cases,
    trec_cases,
    trec_ranked,
)

# ragauge prints 4 decimals: compare the printed value with the exact value of the reference
HALF_ULP_4DP = 0.5e-4 + 1e-9

# report_multiple_bugs=False: shrink only the first failure (shrinking these nested cases is
# the slow part of a failing run)
COMMON = dict(deadline=None, report_multiple_bugs=False,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# =============================================================================================
# 1. trec_eval path vs pytrec_eval


def _trec_objects(case: TrecCase) -> tuple[Qrels, TrecRun]:
    judgements = case.judgements()
    qq, qd, qg = [j[0] for j in judgements], [j[1] for j in judgements], [j[2] for j in judgements]
    qrels = Qrels(pa.array(qq, pa.string()), pa.array(qd, pa.string()), np.asarray(qg, dtype=np.int64), "qrels")
    run = TrecRun(
        pa.array([r[0] for r in case.rows], pa.string()),
        pa.array([r[1] for r in case.rows], pa.string()),
        np.asarray([r[2] for r in case.rows], dtype=np.float64),
        "testrun",
        "run",
    )
    return qrels, run


def _parse_lines(lines: list[str]) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for line in lines:
        assert line.endswith("\n")
        name, qid, value = line[:-1].split("\t")
        assert len(name) >= 22 and name == f"{name.strip():<22}"
        key = (name.strip(), qid)
        assert key not in out, f"line printed twice: {line!r}"
        out[key] = value
    return out


def _measure_strings(cutoffs: tuple[int, ...], success: tuple[int, ...]) -> list[str]:
    cs = ",".join(map(str, cutoffs))
    return ["num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "ndcg",
            f"P.{cs}", f"recall.{cs}", f"ndcg_cut.{cs}", f"map_cut.{cs}", f"success.{','.join(map(str, success))}"]


COUNTS = ("num_ret", "num_rel", "num_rel_ret")


def _labels(cutoffs: tuple[int, ...], success: tuple[int, ...]) -> list[str]:
    out = ["num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "ndcg"]
    for fam in ("P", "recall", "ndcg_cut", "map_cut"):
        out += [f"{fam}_{k}" for k in cutoffs]
    return out + [f"success_{k}" for k in success]


def _check_value(label: str, qid: str, got: str, want: float) -> None:
    if label in COUNTS:
        assert got == str(int(round(want))), f"{label} {qid}: ragauge {got}, pytrec_eval {want}"
    else:
        assert "." in got and len(got.split(".")[1]) == 4, got
        assert abs(float(got) - want) <= HALF_ULP_4DP, f"{label} {qid}: ragauge {got}, pytrec_eval {want!r}"


def clamped(qrels: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """Negative grades replaced by 0."""
    return {q: {d: max(g, 0) for d, g in docs.items()} for q, docs in qrels.items()}


def check_against_pytrec_eval(case: TrecCase, cutoffs, success, max_docs, rel_level, complete) -> None:
    qrels, run = _trec_objects(case)
    measures = _measure_strings(cutoffs, success)
    options = TrecEvalOptions(measures, per_query=True, complete=complete, max_docs=max_docs, rel_level=rel_level)
    got = _parse_lines(evaluate_trec(qrels, run, options).lines)

    # pytrec_eval has no -M: cut each query to its top max_docs in trec_eval's ranking order
    ref_run = {q: dict(trec_ranked(docs)[:max_docs]) for q, docs in case.run.items()}
    # pytrec_eval gets negative grades as 0 (see the module docstring): ragauge must agree
    evaluator = pytrec_eval.RelevanceEvaluator(clamped(case.qrels), set(measures), relevance_level=rel_level)
    ref = evaluator.evaluate(ref_run)
    labels = _labels(cutoffs, success)

    evaluated = set(case.qrels) & set(case.run)
    assert set(ref) == evaluated  # pytrec_eval: queries with both judgements and results
    expected_ids = set(case.qrels) if complete else evaluated
    assert {qid for _, qid in got} == expected_ids | {"all"}
    assert {name for name, _ in got} == set(labels)

    per_query: dict[str, dict[str, float]] = {}
    for q in expected_ids:
        if q in ref:
            per_query[q] = ref[q]
        else:  # -c: a judged query with no results scores 0 everywhere; num_rel still counts
            num_rel = sum(1 for g in case.qrels[q].values() if g >= rel_level)
            per_query[q] = {label: (num_rel if label == "num_rel" else 0.0) for label in labels}
        for label in labels:
            _check_value(label, q, got[(label, q)], per_query[q][label])

    n = len(expected_ids)
    for label in labels:
        values = [per_query[q][label] for q in expected_ids]
        want = sum(values) if label in COUNTS else (sum(values) / n if n else 0.0)
        _check_value(label, "all", got[(label, "all")], want)


CUTOFFS = st.lists(st.integers(1, 12), min_size=1, max_size=3, unique=True).map(lambda c: tuple(sorted(c)))
OPTIONS = dict(
    cutoffs=CUTOFFS,
    success=CUTOFFS,
    max_docs=st.one_of(st.none(), st.integers(1, 6)),
    rel_level=st.sampled_from([1, 1, 2]),
    complete=st.booleans(),
)


@settings(max_examples=250, **COMMON)
@given(case=trec_cases(layouts=CONTIGUOUS_LAYOUTS), **OPTIONS)
def test_trec_eval_matches_pytrec_eval(case, cutoffs, success, max_docs, rel_level, complete):
    """Each query's rows together (in trec order or not): every measure, every query, and 'all'."""
    check_against_pytrec_eval(case, cutoffs, success, max_docs, rel_level, complete)


@settings(max_examples=150, **COMMON)
@given(case=trec_cases(layouts=INTERLEAVED_LAYOUTS), **OPTIONS)
@example(  # the smallest file that ragauge (before the fix of trec_ranking_order) ranked in file order
    case=TrecCase(qrels={"1": {"0": 0, "1": 0, "2": 1}}, run={"1": {"0": 0.0, "1": 0.0, "2": 0.0}, "00": {"0": 0.0}},
                  rows=[("1", "0", 0.0), ("00", "0", 0.0), ("1", "2", 0.0), ("1", "1", 0.0)], layout="shuffled"),
    cutoffs=(1,), success=(1,), max_docs=None, rel_level=1, complete=False,
)
def test_trec_eval_matches_pytrec_eval_interleaved_rows(case, cutoffs, success, max_docs, rel_level, complete):
    """trec_eval ranks by score whatever the row order, also when a query's rows are scattered
    over the file (interleaved with other queries)."""
    check_against_pytrec_eval(case, cutoffs, success, max_docs, rel_level, complete)


def _write_trec_files(case: TrecCase, directory: Path, runid: str, sep: str = "\t") -> tuple[Path, Path]:
    qrels_path, run_path = directory / "qrels.txt", directory / "run.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in case.judgements()), encoding="utf-8")
    run_path.write_text("".join(f"{q}{sep}Q0 {d} {i} {s!r} {runid}\n" for i, (q, d, s) in enumerate(case.rows)),
                        encoding="utf-8")
    return qrels_path, run_path


@settings(max_examples=60, **COMMON)
@given(case=trec_cases(), cutoffs=CUTOFFS, sep=st.sampled_from(["\t", " "]), block=st.sampled_from([128, 1 << 23]),
       threaded=st.booleans())
def test_trec_eval_from_files_equals_in_memory(case, cutoffs, sep, block, threaded):
    """Reading the files (scores written with repr, so exactly) gives the same lines, plus runid.

    A tab takes the normalizing parser, single spaces Arrow's own; 128-byte blocks make Arrow
    return many chunks, so query blocks and runs of ties straddle chunk boundaries; "threaded"
    runs duplicate detection and hashing in their second threads as on a large run."""
    import pyarrow.csv as pcsv

    import ragauge.formats.trec as trec_format
    import ragauge.metrics.build as build
    import ragauge.treceval.runner as runner

    measures = ["runid", "num_q", *_measure_strings(cutoffs, (1, 5, 10))]
    options = TrecEvalOptions(measures, per_query=True, max_docs=None if threaded else 3)
    csv_options = trec_format._csv_options

    def small_blocks(fields, keep):
        out = csv_options(fields, keep)
        out["read_options"] = pcsv.ReadOptions(column_names=list(fields), block_size=block)
        return out

    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setattr(trec_format, "_csv_options", small_blocks)
        if threaded:
            mp.setattr(build, "PARALLEL_ROWS", 0)
            mp.setattr(runner, "PARALLEL_ROWS", 0)
        qrels_path, run_path = _write_trec_files(case, Path(tmp), "my_run", sep)
        from_files = trec_eval(qrels_path, run_path, options).lines
    qrels, run = _trec_objects(case)
    in_memory = evaluate_trec(qrels, run, options).lines
    runid = "my_run" if case.rows else ""
    assert [line for line in from_files if not line.startswith(("runid", "num_q"))] == \
           [line for line in in_memory if not line.startswith(("runid", "num_q"))]
    assert f"{'runid':<22}\tall\t{runid}\n" in from_files
    assert f"{'num_q':<22}\tall\t{len(set(case.qrels) & set(case.run))}\n" in from_files


@settings(max_examples=100, **COMMON)
@given(case=trec_cases(), complete=st.booleans(), max_docs=st.sampled_from([None, 2]))
def test_trec_unj_matches_its_definition(case, complete, max_docs):
    """trec_eval 10's unj_k (pytrec_eval, trec_eval 9, has none; the v10 fixtures in tests/treceval
    check it against trec_eval itself): unjudged documents in the top k over k, a document
    unjudged when the qrels do not list it or grade it below 0."""
    qrels, run = _trec_objects(case)
    options = TrecEvalOptions(["unj.1,3,20"], per_query=True, complete=complete, max_docs=max_docs)
    got = _parse_lines(evaluate_trec(qrels, run, options).lines)
    ids = set(case.qrels) if complete else set(case.qrels) & set(case.run)
    for q in ids:
        ranked = [d for d, _ in trec_ranked(case.run.get(q, {}))][:max_docs]
        for k in (1, 3, 20):
            unjudged = sum(case.qrels[q].get(d, -1) < 0 for d in ranked[:k])
            assert abs(float(got[(f"unj_{k}", q)]) - unjudged / k) <= HALF_ULP_4DP, (q, k, ranked, case.qrels[q])


@settings(max_examples=60, **COMMON)
@given(case=trec_cases(), separator=st.sampled_from([" ", "\t"]))
def test_read_run_ranks_trec_files_as_trec_eval(case, separator):
    """ragauge eval reads a TREC run in trec_eval's order, whatever the file layout; single
    spaces take Arrow's fast path, a tab the normalizing one."""
    from ragauge.formats.runs import read_run

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.trec"
        path.write_text("".join(f"{q}{separator}Q0 {d} {i} {s!r} r\n" for i, (q, d, s) in enumerate(case.rows)),
                        encoding="utf-8")
        run = read_run(path)
        assert set(run.queries) == set(case.run)
        for q, docs in case.run.items():
            assert [h.doc_id for h in run.result(q).hits] == [d for d, _ in trec_ranked(docs)]
        relevant = {q: {d: 1 for d, g in docs.items() if g >= 1} for q, docs in case.qrels.items()}
        if not set(run.queries) & set(relevant):  # nothing to score: refused, never all zeros
            with pytest.raises(InputError, match="holds no questions|none of the run's"):
                evaluate_run(_golden(relevant), run, metrics=["mrr", "ndcg@3"], fetch=2)
            return
        ev = evaluate_run(_golden(relevant), run, metrics=["mrr", "ndcg@3"], fetch=2)
        for row in ev.queries:
            ranked = [d for d, _ in trec_ranked(case.run.get(row.id, {}))][:2]
            first = next((i + 1 for i, d in enumerate(ranked) if d in relevant[row.id]), None)
            assert row.values["mrr"] == (1 / first if first else 0.0)
            assert [t.doc_id for t in row.top] == ranked


def test_fingerprint_collisions_are_not_duplicates():
    # same length, same first and last 8 bytes, different documents: not a duplicate (trec path)
    # and not folded (eval); test_build.py covers fingerprints that truly collide
    a, b = "P" * 8 + "x" + "Q" * 21, "P" * 8 + "y" + "Q" * 21
    qrels = Qrels(pa.array(["q1"]), pa.array([b]), np.array([1]), "qrels")
    run = TrecRun(pa.array(["q1", "q1"]), pa.array([a, b]), np.array([1.0, 1.0]), "r", "run")
    lines = evaluate_trec(qrels, run, TrecEvalOptions(["num_ret", "recip_rank"], per_query=True)).lines
    assert lines[:2] == [f"{'num_ret':<22}\tq1\t2\n", f"{'recip_rank':<22}\tq1\t1.0000\n"]  # b > a: b first
    ev = evaluate_run(_golden({"q1": {b: 1}}), _run({"q1": [(a, None), (b, None), (a, None)]}), metrics=["mrr"])
    assert ev.queries[0].values["mrr"] == 0.5 and ev.queries[0].folded == 1 and ev.queries[0].n_unique == 2


def test_trec_eval_duplicate_docno_is_an_error():
    qrels = Qrels(pa.array(["q1"]), pa.array(["a"]), np.array([1]), "qrels")
    run = TrecRun(pa.array(["q1", "q1", "q1"]), pa.array(["a", "b", "a"]), np.array([3.0, 2.0, 1.0]), "r", "run")
    with pytest.raises(InputError, match="more than once"):
        evaluate_trec(qrels, run, TrecEvalOptions(["map"]))


# =============================================================================================
# 2. evaluate_run vs ir_measures, a textbook reference, and ranx


def _golden(relevant: dict[str, dict[str, int]]) -> GoldenSet:
    return GoldenSet.from_queries(GoldenQuery(q, f"question {q}", dict(rel)) for q, rel in relevant.items())


def _run(hits: dict[str, list[tuple[str, float | None]]]) -> Run:
    return Run.from_results(QueryResult(q, tuple(Hit(d, None, s) for d, s in hs)) for q, hs in hits.items())


def _deduped(hits: list[tuple[str, float | None]], fetch: int | None) -> list[str]:
    """The ranking ragauge promises: the first ``fetch`` raw hits, duplicates folded first-seen."""
    return list(dict.fromkeys(d for d, _ in hits[:fetch]))


def _specs(ks: tuple[int, ...]) -> list[str]:
    out = ["mrr", "map", "rprec", "ndcg", "judged"]
    for k in ks:
        out += [f"ndcg@{k}", f"mrr@{k}", f"recall@{k}", f"precision@{k}", f"hit@{k}", f"map@{k}", f"judged@{k}"]
    return out


def reference(spec: str, ranking: list[str], grades: dict[str, int]) -> float:
    """Textbook definitions, one loop each (relevant: grade >= 1; gain: grade if > 0; judged: any
    grade, 0 and negative included)."""
    name, _, cut = spec.partition("@")
    k = int(cut) if cut else None
    rel = {d for d, g in grades.items() if g >= 1}
    R = len(rel)
    top = ranking if k is None else ranking[:k]
    if name == "judged":
        return sum(d in grades for d in top) / len(top) if top else 0.0
    if name == "hit":
        return float(any(d in rel for d in top))
    if name == "precision":
        return sum(d in rel for d in top) / k
    if name == "recall":
        return sum(d in rel for d in top) / R if R else 0.0
    if name == "mrr":
        return next((1.0 / i for i, d in enumerate(top, 1) if d in rel), 0.0)
    if name == "rprec":
        return sum(d in rel for d in ranking[:R]) / R if R else 0.0
    if name == "map":
        found, total = 0, 0.0
        for i, d in enumerate(top, 1):
            if d in rel:
                found += 1
                total += found / i
        return total / R if R else 0.0
    if name == "ndcg":
        gain = {d: max(g, 0) for d, g in grades.items()}
        dcg = sum(gain.get(d, 0) / math.log2(i + 1) for i, d in enumerate(top, 1))
        ideal = sorted((g for g in gain.values() if g > 0), reverse=True)[:k]
        idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal, 1))
        return dcg / idcg if idcg else 0.0
    raise AssertionError(spec)


def _ir_measure(spec: str):
    name, _, cut = spec.partition("@")
    k = int(cut) if cut else None
    base = {"ndcg": nDCG, "mrr": RR, "recall": R, "precision": P, "hit": Success, "map": AP, "rprec": Rprec,
            "judged": Judged}[name]
    return base if k is None else base @ k


def _evaluate(case, unjudged="non-relevant"):
    """The evaluation and its specs; a run sharing no question with the golden set is refused
    (an all-zero result would mislead), so such a case is checked for that and skipped."""
    golden, run = _golden(case.relevant), _run(case.hits)
    specs = _specs(case.ks)
    if not set(case.hits) & set(case.relevant):
        with pytest.raises(InputError, match="holds no questions|none of the run's"):
            evaluate_run(golden, run, metrics=specs, fetch=case.fetch, unjudged=unjudged)
        assume(False)
    return evaluate_run(golden, run, metrics=specs, fetch=case.fetch, unjudged=unjudged), specs


def _answerable(case) -> list[str]:
    return [q for q, rel in case.relevant.items() if any(g >= 1 for g in rel.values())]


@settings(max_examples=200, **COMMON)
@given(case=eval_cases())
def test_evaluate_run_matches_reference_and_ir_measures(case):
    evaluation, specs = _evaluate(case)
    answerable = _answerable(case)
    values = {q.id: q.values for q in evaluation.queries}
    assert list(values) == answerable  # golden order; no-answer questions are reported apart

    rankings = {q: _deduped(case.hits.get(q, []), case.fetch) for q in answerable}
    for q in answerable:
        assert set(values[q]) == set(specs)
        for spec in specs:
            want = reference(spec, rankings[q], case.relevant[q])
            assert values[q][spec] == pytest.approx(want, abs=1e-12), (q, spec, rankings[q], case.relevant[q])

    if not case.integer_grades:
        return  # pytrec_eval (behind ir_measures) takes integer grades only
    # ir_measures: the deduplicated ranking expressed as strictly decreasing scores (-rank)
    qrels = clamped({q: case.relevant[q] for q in answerable})
    run = {q: {d: -float(i) for i, d in enumerate(r, 1)} for q, r in rankings.items() if r}
    by_provider = {
        "pytrec_eval": [s for s in specs if not s.startswith(("mrr@", "judged"))],  # no RR@k, no Judged
        "msmarco": [s for s in specs if s.startswith("mrr")],                        # ir_measures' own RR / RR@k
        "judged": [s for s in specs if s.startswith("judged")],                      # its own Judged / Judged@k
    }
    for provider_name, provider_specs in by_provider.items():
        provider = ir_measures.providers.registry[provider_name]
        measures = {_ir_measure(s): s for s in provider_specs}
        assert all(provider.supports(m) for m in measures)
        seen = set()
        if run:
            for metric in provider.iter_calc(list(measures), qrels, run):
                spec = measures[metric.measure]
                seen.add((metric.query_id, spec))
                assert values[metric.query_id][spec] == pytest.approx(metric.value, abs=1e-9), \
                    (provider_name, metric, rankings[metric.query_id], case.relevant[metric.query_id])
        # every query with results is reported (pytrec_eval also reports judged queries without
        # results, as 0); a query without results scores 0 in ragauge
        for q in answerable:
            for spec in provider_specs:
                assert (q, spec) in seen or not rankings[q], (provider_name, q, spec)
                if not rankings[q]:
                    assert values[q][spec] == 0.0


def _judged_only(spec: str):
    """The ir_measures measure scoring ``spec`` on a condensed list (unjudged documents removed)."""
    name, _, cut = spec.partition("@")
    base = {"ndcg": nDCG, "mrr": RR, "recall": R, "precision": P, "hit": Success, "map": AP, "rprec": Rprec}[name]
    return base(judged_only=True) if not cut else base(judged_only=True) @ int(cut)


@settings(max_examples=150, **COMMON)
@given(case=eval_cases())
def test_unjudged_unknown_scores_condensed_lists(case):
    """unjudged="unknown": every metric but judged@k equals the textbook value on the ranking with
    unlabelled documents removed (Sakai's condensed list), and ir_measures' judged_only=True
    (trec_eval -J inside pytrec_eval) on the full ranking; judged@k still reads the full ranking."""
    evaluation, specs = _evaluate(case, unjudged="unknown")
    answerable = _answerable(case)
    values = {q.id: q.values for q in evaluation.queries}
    rankings = {q: _deduped(case.hits.get(q, []), case.fetch) for q in answerable}
    for q in answerable:
        condensed = [d for d in rankings[q] if d in case.relevant[q]]
        for spec in specs:
            ranking = rankings[q] if spec.startswith("judged") else condensed
            want = reference(spec, ranking, case.relevant[q])
            assert values[q][spec] == pytest.approx(want, abs=1e-12), (q, spec, rankings[q], case.relevant[q])
    assert evaluation.meta["contract"]["unjudged"] == "unknown"

    if not case.integer_grades:
        return
    qrels = clamped({q: case.relevant[q] for q in answerable})  # grade 0 stays: still judged
    run = {q: {d: -float(i) for i, d in enumerate(r, 1)} for q, r in rankings.items() if r}
    provider = ir_measures.providers.registry["pytrec_eval"]
    measures = {_judged_only(s): s for s in specs if not s.startswith(("mrr@", "judged"))}
    assert all(provider.supports(m) for m in measures)
    if run:
        for metric in provider.iter_calc(list(measures), qrels, run):
            spec = measures[metric.measure]
            assert values[metric.query_id][spec] == pytest.approx(metric.value, abs=1e-9), \
                (metric, rankings[metric.query_id], case.relevant[metric.query_id])


def _default_provider(measure) -> str:
    """The provider ir_measures.iter_calc uses for ``measure`` (first available that supports it)."""
    return next(p.NAME for p in ir_measures.DefaultPipeline.providers if p.is_available() and p.supports(measure))


def test_ir_measures_default_providers_and_agreement():
    """Pin which implementation ir_measures uses by default (a change would alter what the
    property test above cross-checks against), and check ragauge against the default pipeline."""
    assert {str(m): _default_provider(m)
            for m in (nDCG @ 5, RR, RR @ 10, R @ 5, P @ 5, Success @ 5, AP, AP @ 10, Rprec, nDCG, Judged @ 5,
                      Judged)} \
        == {"nDCG@5": "pytrec_eval", "RR": "pytrec_eval", "RR@10": "msmarco", "R@5": "pytrec_eval",
            "P@5": "pytrec_eval", "Success@5": "pytrec_eval", "AP": "pytrec_eval", "AP@10": "pytrec_eval",
            "Rprec": "pytrec_eval", "nDCG": "pytrec_eval", "Judged@5": "judged", "Judged": "judged"}
    qrels = {"q1": {"a": 2, "b": 1, "c": 0, "d": 3}}
    hits = [("c", None), ("b", None), ("x", None), ("c", None), ("a", None)]
    run = {"q1": {"c": -1.0, "b": -2.0, "x": -3.0, "a": -4.0}}  # deduplicated, -rank
    measures = [nDCG @ 3, nDCG, AP, AP @ 2, RR, RR @ 1, R @ 3, P @ 3, Success @ 1, Rprec, Judged @ 3, Judged @ 9,
                Judged]
    got = {str(m.measure): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    ev = evaluate_run(_golden(qrels), _run({"q1": hits}),
                      metrics=["ndcg@3", "ndcg", "map", "map@2", "mrr", "mrr@1", "recall@3", "precision@3", "hit@1",
                               "rprec", "judged@3", "judged@9", "judged"])
    values = ev.queries[0].values
    for spec, measure in zip(values, measures):
        assert values[spec] == pytest.approx(got[str(measure)], abs=1e-12), spec


@settings(max_examples=150, **COMMON)
@given(case=eval_cases())
def test_evaluate_run_summary_missing_and_no_answer(case):
    evaluation, specs = _evaluate(case)
    answerable = _answerable(case)
    no_answer = [q for q in case.relevant if q not in answerable]

    # no-answer questions: listed apart, never in the means
    assert [item["id"] for item in evaluation.no_answer["questions"]] == no_answer
    assert evaluation.no_answer["n"] == len(no_answer)
    assert evaluation.meta["counts"]["answerable"] == len(answerable)

    # summary = plain mean of the per-question values over answerable questions; with none, the
    # mean is empty (NaN, written as null and shown as n/a) and a warning says why, never 0
    for spec in specs:
        per_q = [q.values[spec] for q in evaluation.queries]
        if per_q:
            assert evaluation.summary[spec] == pytest.approx(sum(per_q) / len(per_q), abs=1e-12)
        else:
            assert math.isnan(evaluation.summary[spec])
            assert any("no-answer questions" in w for w in evaluation.warnings)

    # questions missing from the run (no line) or answered with no hits score 0; only the first are missing
    for q in evaluation.queries:
        if not case.hits.get(q.id):
            assert q.status == ("ok" if q.id in case.hits else "missing")
            assert all(v == 0.0 for v in q.values.values())
            assert q.first_relevant_rank is None
        else:
            assert q.status == "ok"
            ranking = _deduped(case.hits[q.id], case.fetch)
            assert q.n_unique == len(ranking)
            assert q.n_hits == len(case.hits[q.id])
            assert q.folded == len(case.hits[q.id][:case.fetch]) - len(ranking)


@settings(max_examples=30, **COMMON)
@given(case=eval_cases(modes=("binary", "graded")))
def test_evaluate_run_matches_ranx(case):
    """ranx: numba kernels written independently of trec_eval. Optional (not a dev dependency);
    its first call JIT-compiles (about 15 s once, then cached by numba)."""
    ranx = pytest.importorskip("ranx")
    evaluation, specs = _evaluate(case)
    values = {q.id: q.values for q in evaluation.queries}
    rankings = {q: _deduped(case.hits.get(q, []), case.fetch) for q in values}
    ids = [q for q in values if rankings[q]]
    assume(ids)
    names = {"ndcg": "ndcg", "mrr": "mrr", "recall": "recall", "precision": "precision", "hit": "hit_rate",
             "map": "map", "rprec": "r-precision"}
    ranx_metrics = {}
    for spec in [s for s in specs if not s.startswith("judged")]:  # ranx has no judgement rate
        name, _, cut = spec.partition("@")
        ranx_metrics[names[name] + (f"@{cut}" if cut else "")] = spec
    qrels = ranx.Qrels(clamped({q: case.relevant[q] for q in ids}))
    run = ranx.Run({q: {d: float(len(rankings[q]) - i) for i, d in enumerate(rankings[q])} for q in ids})
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = ranx.evaluate(qrels, run, list(ranx_metrics), return_mean=False, make_comparable=False)
    for metric, spec in ranx_metrics.items():
        assert len(out[metric]) == len(ids)
        for q in ids:  # per-query values, by query id
            assert values[q][spec] == pytest.approx(float(run.scores[metric][q]), abs=1e-9), \
                (metric, q, rankings[q], case.relevant[q])


# =============================================================================================
# 3. Hand-computed examples: the contract in numbers


def test_hand_computed_graded_example():
    # relevant: a=3, b=2, c=1; the retriever returns b, x, a, b (x unjudged, b repeated)
    # deduplicated ranking: b (grade 2), x (-), a (grade 3)      [the second b is folded]
    #   DCG@3  = 2/log2(2) + 0/log2(3) + 3/log2(4) = 2 + 0 + 1.5              = 3.5
    #   IDCG@3 = 3/log2(2) + 2/log2(3) + 1/log2(4) = 3 + 1.26186 + 0.5        = 4.76186
    #   nDCG@3 = 3.5 / 4.76186                                                = 0.73500
    #   mrr    = 1/1 (b is relevant: grade >= 1)
    #   recall@2 = 1/3, precision@2 = 1/2, hit@1 = 1
    #   map    = (P@1 + P@3) / 3 = (1/1 + 2/3) / 3 = 5/9;  map@2 = (1/1) / 3 = 1/3
    #   rprec  = relevant in top R=3 / 3 = 2/3
    golden = _golden({"q1": {"a": 3, "b": 2, "c": 1}})
    run = _run({"q1": [("b", 0.1), ("x", 0.9), ("a", 0.5), ("b", 0.8)]})  # scores do not reorder hits
    ev = evaluate_run(golden, run,
                      metrics=["ndcg@3", "mrr", "recall@2", "precision@2", "hit@1", "map", "map@2", "rprec"])
    v = ev.queries[0].values
    assert v["ndcg@3"] == pytest.approx(3.5 / (3 + 2 / math.log2(3) + 0.5), abs=1e-12)
    assert v["ndcg@3"] == pytest.approx(0.73500, abs=1e-5)
    assert v["mrr"] == 1.0
    assert v["recall@2"] == pytest.approx(1 / 3)
    assert v["precision@2"] == 0.5
    assert v["hit@1"] == 1.0
    assert v["map"] == pytest.approx(5 / 9)
    assert v["map@2"] == pytest.approx(1 / 3)
    assert v["rprec"] == pytest.approx(2 / 3)
    assert ev.queries[0].folded == 1 and ev.queries[0].n_unique == 3


def test_hand_computed_duplicates_and_no_answer():
    # q1: hits x, a, x, b; relevant b -> deduplicated x, a, b -> b at rank 3 -> mrr 1/3 (not 1/4)
    # q2: no relevant document -> no-answer, excluded from the means
    # q3: answerable but absent from the run -> 0
    golden = _golden({"q1": {"b": 1}, "q2": {}, "q3": {"c": 1}})
    run = _run({"q1": [("x", None), ("a", None), ("x", None), ("b", None)], "q2": [("b", None)]})
    ev = evaluate_run(golden, run, metrics=["mrr", "hit@3", "precision@3"])
    v = {q.id: q.values for q in ev.queries}
    assert v == {"q1": {"mrr": 1 / 3, "hit@3": 1.0, "precision@3": 1 / 3},
                 "q3": {"mrr": 0.0, "hit@3": 0.0, "precision@3": 0.0}}
    assert ev.summary == {"mrr": pytest.approx(1 / 6), "hit@3": 0.5, "precision@3": pytest.approx(1 / 6)}
    assert [q["id"] for q in ev.no_answer["questions"]] == ["q2"]


def test_hand_computed_trec_ties_and_negative_grades():
    # q1 run: a 1.0, b 1.0, c 0.5, d 2.0; qrels: a=1, c=2, d=-1
    # trec_eval order: d (2.0), then the tie at 1.0 by docno descending: b, a, then c
    #   recip_rank = 1/3 (a at rank 3; d has grade -1: not relevant)
    #   ndcg: DCG = 0 (d: negative grade gives no gain) + 0 + 1/log2(4) + 2/log2(5)
    #         IDCG = 2/log2(2) + 1/log2(3)
    qrels = Qrels(pa.array(["q1"] * 3), pa.array(["a", "c", "d"]), np.array([1, 2, -1]), "qrels")
    run = TrecRun(pa.array(["q1"] * 4), pa.array(["a", "b", "c", "d"]), np.array([1.0, 1.0, 0.5, 2.0]), "r", "run")
    lines = evaluate_trec(qrels, run, TrecEvalOptions(["recip_rank", "ndcg", "num_rel"], per_query=True)).lines
    ndcg = (1 / 2 + 2 / math.log2(5)) / (2 + 1 / math.log2(3))
    assert lines == [
        f"{'num_rel':<22}\tq1\t2\n",
        f"{'recip_rank':<22}\tq1\t0.3333\n",
        f"{'ndcg':<22}\tq1\t{ndcg:.4f}\n",
        f"{'num_rel':<22}\tall\t2\n",
        f"{'recip_rank':<22}\tall\t0.3333\n",
        f"{'ndcg':<22}\tall\t{ndcg:.4f}\n",
    ]
    assert f"{ndcg:.4f}" == "0.5174"


def test_trec_eval_ranks_a_query_split_over_separate_blocks():
    # q1's rows are not together: d (0.5), then a q2 row, then e (1.0). trec_eval ranks q1 by
    # score whatever the file order: e first, d second -> recip_rank of d is 0.5.
    qrels = Qrels(pa.array(["q1", "q1"]), pa.array(["d", "e"]), np.array([1, 0]), "qrels")
    run = TrecRun(pa.array(["q1", "q2", "q1"]), pa.array(["d", "x", "e"]), np.array([0.5, 1.0, 1.0]), "r", "run")
    lines = evaluate_trec(qrels, run, TrecEvalOptions(["recip_rank"], per_query=True)).lines
    want = pytrec_eval.RelevanceEvaluator({"q1": {"d": 1, "e": 0}}, {"recip_rank"}).evaluate(
        {"q1": {"d": 0.5, "e": 1.0}, "q2": {"x": 1.0}})["q1"]["recip_rank"]
    assert want == 0.5
    assert lines[0] == f"{'recip_rank':<22}\tq1\t0.5000\n"


def test_duplicate_error_names_the_first_query_in_evaluation_order(tmp_path):
    """Queries are checked in trec_eval's order (qid as bytes: '10' < '2'), with or without -M,
    and with out-of-order ties or not."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n10 0 a 1\n2 0 a 1\n", encoding="utf-8")
    for tail in ("", "10 Q0 c 3 0.0 x\n10 Q0 d 4 0.0 x\n"):
        run = tmp_path / "run"
        run.write_text("2 Q0 a 1 2.0 x\n2 Q0 a 2 1.0 x\n10 Q0 b 1 2.0 x\n10 Q0 b 2 1.0 x\n" + tail, encoding="utf-8")
        for max_docs in (None, 100):
            with pytest.raises(InputError, match="query '10' retrieves document 'b' more than once"):
                trec_eval(qrels, run, TrecEvalOptions(["map"], max_docs=max_docs))
