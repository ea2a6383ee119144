"""Judge what decides (golden pool --for-verdict): each question's extremes held to every labelling scored by
the evaluation engine, the verdict held to compare's on real runs, certainty checked by drawing labellings
between the extremes, the order, the pool file's version 2 header and the refusals."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.curation.verdict import VERDICTS, VerdictState, verdict_of
from ragauge.errors import InputError
from ragauge.formats.pool import read_pool

ROOT = Path(__file__).parents[2]
SCIFACT = ROOT / "examples" / "scifact"


def write_golden(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def engine_differences(golden: list[dict[str, Any]], a: dict[str, list[str]], b: dict[str, list[str]],
                       metric: str) -> dict[str, float]:
    """new - base per question through ragauge.evaluate (the engine eval uses); a question with no relevant
    document, which the evaluation leaves out, is a tie."""
    values = []
    for run in (a, b):
        result = ragauge.evaluate(golden, run=run, metrics=[metric])
        values.append({q.id: q.values[metric] for q in result.queries})
    return {row["id"]: values[1].get(row["id"], 0.0) - values[0].get(row["id"], 0.0) for row in golden}


def random_question(rng: np.random.Generator) -> tuple[dict[str, float], list[str], list[str]]:
    """Known labels, base's list, new's list over 8 documents: lists of 5, about a third of the pooled
    documents judged, sometimes a relevant document neither returns."""
    docs = [f"d{i}" for i in range(8)]
    a = list(rng.choice(docs, size=5, replace=False))
    b = list(rng.choice(docs, size=5, replace=False))
    known: dict[str, float] = {}
    for d in sorted(set(a) | set(b)):
        if rng.random() < 0.3:
            known[d] = float(rng.random() < 0.4)
    if rng.random() < 0.5:
        known["outside"] = 1.0
    return known, a, b


@pytest.mark.parametrize("metric, searched", [(m, s) for m in ("ndcg@4", "recall@4", "precision@4", "hit@4", "mrr@4",
                                                                  "map@4") for s in (False, True)])
def test_each_questions_extremes_are_those_of_every_labelling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              metric: str, searched: bool) -> None:
    """Every labelling tried (up to EXHAUSTIVE unjudged documents) or the search (forced here): the
    difference now, its extremes and each document's moves are those of every labelling, scored by the
    evaluation engine; for AP the search's moves (which only order the pairs) are not held."""
    import ragauge.curation.verdict as verdict

    if searched:
        monkeypatch.setattr(verdict, "EXHAUSTIVE", 0)
    rng = np.random.default_rng(sum(map(ord, metric)))
    for case in range(12):
        known, a, b = random_question(rng)
        golden = write_golden(tmp_path / "golden.jsonl", [{"id": "q", "query": "q", "relevant": known or None}])
        pool = ragauge.pool_golden(golden, for_verdict={"a": {"q": a}, "b": {"q": b}}, depth=5,
                                   verdict_metric=metric).pool
        state = VerdictState(pool)
        q = state.questions[0]
        unjudged = [q.docs[i] for i in q.open]
        rows = []
        for labels in itertools.product([0.0, 1.0], repeat=len(unjudged)):
            grades = {**known, **dict(zip(unjudged, labels))}
            rows.append({"id": f"l{len(rows)}", "query": "q", "relevant": {d: g for d, g in grades.items()}})
        d = engine_differences(rows, {r["id"]: a for r in rows}, {r["id"]: b for r in rows}, metric)
        values = np.array([d[r["id"]] for r in rows])
        assert q.lo == pytest.approx(values.min(), abs=1e-12), (case, known, a, b)
        assert q.hi == pytest.approx(values.max(), abs=1e-12), (case, known, a, b)
        assert q.now == pytest.approx(values[0], abs=1e-12)
        if searched and metric.startswith("map"):
            continue
        labelled = np.array([[r["relevant"][doc] for doc in unjudged] for r in rows]).reshape(len(rows), -1)
        for j, doc in enumerate(unjudged):
            for r, col in ((0.0, 0), (1.0, 2)):
                some = values[labelled[:, j] == r]
                assert q.moves[j, col] == pytest.approx(some.min() - values.min(), abs=1e-12), (case, doc, r)
                assert q.moves[j, col + 1] == pytest.approx(values.max() - some.max(), abs=1e-12), (case, doc, r)


def test_the_full_label_verdict_is_compares_on_the_scifact_runs() -> None:
    """Every label known: the pool's verdict and mean difference are compare's (300 questions, BM25 and BM25
    without stemming, nDCG@10 and recall@5)."""
    base, new = SCIFACT / "bm25.run.jsonl", SCIFACT / "bm25-nostem.run.jsonl"
    for metric in ("ndcg@10", "recall@5"):
        status = ragauge.pool_golden(SCIFACT / "golden.jsonl", for_verdict=[str(base), str(new)], depth=10,
                                     verdict_metric=metric).verdict
        delta = ragauge.compare(str(base), str(new), golden=str(SCIFACT / "golden.jsonl"), metrics=[metric])
        d = delta.metrics[metric]
        assert status is not None and status.diff == pytest.approx(d.diff, abs=1e-12)
        assert d.verdict.startswith(VERDICTS[status.now].split(" ")[0]) or (
            status.now == 0 and d.verdict.startswith("no "))
        assert status.interval == pytest.approx(d.ci, abs=1e-9)


def synthetic_pool(tmp_path: Path, questions: int = 40, seed: int = 3) -> tuple[Any, dict[tuple[str, str], float],
                                                                             list[dict[str, Any]], Any, Any]:
    """A pool for a verdict over ``questions`` questions where new is mostly better (the golden set keeps
    a third of each question's labels); each candidate's true grade, the fully labelled golden set, the runs."""
    rng = np.random.default_rng(seed)
    golden, full, truth, a, b = [], [], {}, {}, {}
    for i in range(questions):
        qid = f"q{i}"
        docs = [f"{qid}-d{j}" for j in range(8)]
        relevant = set(rng.choice(docs, size=2, replace=False))
        others = [d for d in docs if d not in relevant]
        a[qid] = list(rng.permutation(others))[:3] + sorted(relevant)[:1] + list(rng.permutation(others))[3:4]
        b[qid] = sorted(relevant)[:1] + list(rng.permutation(others))[:3]
        kept = {d: 1.0 for d in relevant if rng.random() < 0.3}
        golden.append({"id": qid, "query": qid, "relevant": kept or None})
        full.append({"id": qid, "query": qid, "relevant": sorted(relevant)})
        for d in set(a[qid]) | set(b[qid]):
            truth[(qid, d)] = 1.0 if d in relevant else 0.0
    path = write_golden(tmp_path / "golden.jsonl", golden)
    pool = ragauge.pool_golden(path, for_verdict={"base": a, "new": b}, depth=5, verdict_metric="ndcg@5",
                               output=tmp_path / "pool.jsonl").pool
    truth = {(q.id, c.doc_id): truth[(q.id, c.doc_id)] for q in pool.questions for c in q.candidates}
    return pool, truth, full, a, b


def test_a_certain_verdict_holds_for_labellings_drawn_between_the_extremes(tmp_path: Path) -> None:
    """Judged in the verdict's order until certain, then every labelling drawn for the pairs left (all not
    relevant, all relevant, and shares in between), scored by the evaluation engine, gives that verdict;
    and so do the true labels."""
    pool, truth, full, a, b = synthetic_pool(tmp_path)
    state = VerdictState(pool)
    steps = 0
    while not state.status().certain:
        item, _ = state.order()[0]
        state.set(item, truth[item])
        steps += 1
    status = state.status()
    assert 0 < steps < len(truth) and status.low == status.high == 1
    rng = np.random.default_rng(0)
    left = [item for item, _ in state.order()]
    for draw in range(10):
        labels = {**state.labels, **{item: float(rng.random() < draw / 9) for item in left}}
        golden = [{"id": q.id, "query": q.id, "relevant": {**{j.doc_id: j.grade for j in q.judged},
                                                           **{d: g for (qid, d), g in labels.items() if qid == q.id}}}
                  for q in pool.questions]
        d = engine_differences(golden, a, b, "ndcg@5")
        assert verdict_of(np.array([d[q.id] for q in pool.questions]), 0.05)[0] == 1, draw
    d = engine_differences(full, a, b, "ndcg@5")
    assert verdict_of(np.array([d[q.id] for q in pool.questions]), 0.05)[0] == 1


def test_not_certain_means_the_extremes_disagree_and_undoing_a_label_goes_back(tmp_path: Path) -> None:
    pool, truth, *_ = synthetic_pool(tmp_path)
    state = VerdictState(pool)
    before = state.status()
    assert not before.certain and before.low == -1 and before.high == 1 and before.unjudged == len(truth)
    item, _ = state.order()[0]
    state.set(item, truth[item])
    assert state.status().unjudged == len(truth) - 1
    state.set(item, None)
    assert state.status() == before


def test_pairs_that_cannot_move_the_verdict_come_last_in_pool_order(tmp_path: Path) -> None:
    """q-same: both systems return the same list, so no label changes its difference; q-diff: they
    disagree. Every pair of q-diff comes before every pair of q-same, whose priority is 0."""
    golden = write_golden(tmp_path / "golden.jsonl", [{"id": "q-same", "query": "s", "relevant": ["x"]},
                                                      {"id": "q-diff", "query": "d", "relevant": ["y"]}])
    same = ["s1", "s2", "x"]
    result = ragauge.pool_golden(golden, for_verdict={"a": {"q-same": same, "q-diff": ["y", "a1", "a2"]},
                                                      "b": {"q-same": same, "q-diff": ["b1", "b2", "y"]}},
                                 depth=3, verdict_metric="ndcg@3")
    order = [(item, round(p, 9)) for item, p in result.order]
    assert [q for (q, _), _ in order[:4]] == ["q-diff"] * 4
    assert order[4:] == [(("q-same", "s1"), 0.0), (("q-same", "s2"), 0.0)]
    assert result.to_dict()["verdict"]["order"][0]["id"] == "q-diff"


@pytest.mark.parametrize("listed, before, after", [
    ({"q1": {"x": 1}, "q2": {"y": 1}}, 1 / 2, 1 / 3),           # relevant documents only (BEIR's convention)
    ({"q1": {"x": 1}, "q2": {"y": 1, "w": 0}}, 3 / 5, 3 / 6),   # a grade 0 recorded: x, y and w count
])
def test_the_chance_of_relevant_learns_from_judged_documents_only_when_the_set_records_not_relevant(
        tmp_path: Path, listed: dict[str, dict[str, int]], before: float, after: float) -> None:
    """A golden set that lists relevant documents only says nothing of how likely a pooled document is to be
    relevant: its judged documents in the pool would put that chance near 1 (0.996 on SciFact's full labels,
    where 7 % of the pooled documents are relevant). One pseudo-judgement each way."""
    golden = write_golden(tmp_path / "golden.jsonl", [{"id": q, "query": q, "relevant": r} for q, r in listed.items()])
    runs = {"a": {"q1": ["x", "a1"], "q2": ["y", "w"]}, "b": {"q1": ["b1", "x"], "q2": ["w", "y"]}}
    state = VerdictState(ragauge.pool_golden(golden, for_verdict=runs, depth=2, verdict_metric="ndcg@2").pool)
    assert state.relevant_share == pytest.approx(before)
    state.set(("q1", "a1"), 0.0)
    assert state.relevant_share == pytest.approx(after)


def test_the_pool_file_records_the_verdict_as_version_2_and_reads_it_back(tmp_path: Path) -> None:
    pool, *_ = synthetic_pool(tmp_path)
    head = json.loads((tmp_path / "pool.jsonl").read_text(encoding="utf-8").splitlines()[0])["_pool"]
    assert head["version"] == 2 and head["verdict"] == {"base": "base", "new": "new", "metric": "ndcg@5",
                                                        "alpha": 0.05}
    again = read_pool(tmp_path / "pool.jsonl")
    assert again.verdict == pool.verdict
    assert [(q.id, q.candidates, q.judged) for q in again.questions] == [(q.id, q.candidates, q.judged)
                                                                          for q in pool.questions]
    plain = ragauge.pool_golden(tmp_path / "golden.jsonl", runs={"base": {"q0": ["x"]}}, depth=5,
                                output=tmp_path / "plain.jsonl")
    assert plain.verdict is None and '"version": 1' in (tmp_path / "plain.jsonl").read_text().splitlines()[0]


@pytest.mark.parametrize("change, message", [
    (lambda h: {**h, "version": 1}, "unknown field(s) 'verdict'"),
    (lambda h: {k: v for k, v in h.items() if k != "verdict"}, "lacks 'verdict'"),
    (lambda h: {**h, "verdict": {**h["verdict"], "new": "ghost"}}, "'ghost', which is not among the pool's systems"),
    (lambda h: {**h, "verdict": {**h["verdict"], "new": "base"}}, "with itself"),
    (lambda h: {**h, "verdict": {**h["verdict"], "alpha": 1.5}}, "alpha"),
    (lambda h: {**h, "version": 3}, "unsupported pool format version 3"),
])
def test_a_bad_verdict_header_is_refused_with_its_line(tmp_path: Path, change: Any, message: str) -> None:
    synthetic_pool(tmp_path)
    lines = (tmp_path / "pool.jsonl").read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    (tmp_path / "bad.jsonl").write_text("\n".join([json.dumps({"_pool": change(head["_pool"])}), *lines[1:]]) + "\n")
    with pytest.raises(InputError) as err:
        read_pool(tmp_path / "bad.jsonl")
    assert message in str(err.value) and "bad.jsonl:1" in str(err.value)


@pytest.mark.parametrize("kwargs, message", [
    ({"verdict_metric": "ndcg"}, "needs a cutoff"),
    ({"verdict_metric": "ndcg@20"}, "deeper than the pool's depth 10"),
    ({"verdict_metric": "rprec"}, "cannot be judged for 'rprec'"),
    ({"verdict_metric": "recall@200t"}, "cannot be judged"),
    ({"for_verdict": ["a.jsonl"]}, "takes two different runs"),
    ({"for_verdict": ["a.jsonl", "a.jsonl"]}, "with the same name"),
    ({"alpha": 0}, "alpha"),
])
def test_refusals_before_anything_is_pooled(tmp_path: Path, kwargs: dict[str, Any], message: str) -> None:
    golden = write_golden(tmp_path / "golden.jsonl", [{"id": "q", "query": "q", "relevant": ["x"]}])
    options = {"for_verdict": ["a.jsonl", "b.jsonl"], **kwargs}
    with pytest.raises(InputError) as err:
        ragauge.pool_golden(golden, **options)  # the run files do not exist: refused before they are read
    assert message in str(err.value)


def test_one_file_named_twice_is_the_same_run(tmp_path: Path) -> None:
    golden = write_golden(tmp_path / "golden.jsonl", [{"id": "q", "query": "q", "relevant": ["x"]}])
    (tmp_path / "runs").mkdir()
    run = tmp_path / "runs" / "a.jsonl"
    run.write_text(json.dumps({"id": "q", "hits": [{"doc_id": "x"}]}) + "\n")
    with pytest.raises(InputError) as err:
        ragauge.pool_golden(golden, for_verdict=[str(run), str(tmp_path / "runs" / ".." / "runs" / "a.jsonl")])
    assert "the same file" in str(err.value) and "a.jsonl" in str(err.value)


@pytest.mark.parametrize("kwargs, message", [
    ({"verdict_metric": "ndcg@20"}, "verdict_metric=ndcg@20 applies only with for_verdict="),
    ({"alpha": 2}, "alpha=2 applies only with for_verdict="),
])
def test_the_verdicts_options_without_a_verdict_are_refused(tmp_path: Path, kwargs: dict[str, Any],
                                                            message: str) -> None:
    golden = write_golden(tmp_path / "golden.jsonl", [{"id": "q", "query": "q", "relevant": ["x"]}])
    with pytest.raises(InputError) as err:
        ragauge.pool_golden(golden, runs=[{"q": ["x"]}], **kwargs)
    assert message in str(err.value)


def test_an_unknown_metric_is_answered_with_the_metrics_a_verdict_takes(tmp_path: Path) -> None:
    golden = write_golden(tmp_path / "golden.jsonl", [{"id": "q", "query": "q", "relevant": ["x"]}])
    with pytest.raises(InputError) as err:
        ragauge.pool_golden(golden, for_verdict=["a.jsonl", "b.jsonl"], verdict_metric="rbo")
    assert "unknown metric 'rbo'" in str(err.value) and "ndcg@k" in str(err.value)
    assert "did you mean" not in str(err.value) and "calls" not in str(err.value)


@pytest.mark.parametrize("extra, message", [
    (["--for-verdict", "RUN", "RUN2"], "the same file"),
    (["--for-verdict", "RUN", "RUN", ], "same name"),
    (["--for-verdict", "RUN", "OTHER", "--metric", "ndcg@20"], "deeper than the pool's depth 10"),
    (["--for-verdict", "RUN", "OTHER", "--metric", "rbo"], "unknown metric 'rbo'"),
    (["--for-verdict", "RUN", "OTHER", "--alpha", "2"], "--alpha must be"),
    (["--run", "RUN", "--alpha", "2"], "--alpha 2 applies only with --for-verdict"),
    (["--run", "RUN", "--metric", "ndcg@20"], "--metric ndcg@20 applies only with --for-verdict"),
])
def test_the_command_refuses_bad_verdict_input_with_one_message(tmp_path: Path, extra: list[str],
                                                               message: str) -> None:
    golden = write_golden(tmp_path / "golden.jsonl", [{"id": "q", "query": "q", "relevant": ["x"]}])
    for name in ("a", "b"):
        (tmp_path / f"{name}.jsonl").write_text(json.dumps({"id": "q", "hits": [{"doc_id": name}]}) + "\n")
    (tmp_path / "sub").mkdir()
    paths = {"RUN": str(tmp_path / "a.jsonl"), "RUN2": str(tmp_path / "sub" / ".." / "a.jsonl"),
             "OTHER": str(tmp_path / "b.jsonl")}
    out = CliRunner().invoke(cli, ["golden", "pool", str(golden), *[paths.get(a, a) for a in extra],
                                   "-o", str(tmp_path / "pool.jsonl")])
    assert out.exit_code == 2, out.output
    assert message in out.stderr and "Traceback" not in out.output
    assert out.stderr.count("error:") == 1 and not (tmp_path / "pool.jsonl").exists()


def test_the_command_pools_for_a_verdict_and_says_where_it_stands(tmp_path: Path) -> None:
    golden = write_golden(tmp_path / "golden.jsonl", [{"id": f"q{i}", "query": "q", "relevant": [f"r{i}"]}
                                                      for i in range(3)])
    for name, first in (("a", "x"), ("b", "y")):
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps({"id": f"q{i}", "hits": [
            {"doc_id": first}, {"doc_id": f"r{i}"}, {"doc_id": "z"}]}) + "\n" for i in range(3)))
    args = ["golden", "pool", str(golden), "--for-verdict", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"),
            "--metric", "ndcg@3", "--depth", "3", "-o", str(tmp_path / "pool.jsonl")]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    assert "verdict on ndcg@3" in out.stdout and "CERTAIN" in out.stdout  # 3 questions: nothing can be shown
    data = json.loads(CliRunner().invoke(cli, [*args, "--format", "json"]).stdout)
    assert data["verdict"]["metric"] == "ndcg@3" and data["verdict"]["certain"] is True
    assert {(o["id"], o["doc_id"]) for o in data["verdict"]["order"]} == {(f"q{i}", d) for i in range(3)
                                                                          for d in ("x", "y", "z")}
    assert read_pool(tmp_path / "pool.jsonl").verdict is not None
