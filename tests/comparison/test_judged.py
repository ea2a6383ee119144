"""compare warns when the new run's top k holds markedly more unjudged documents than the base's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

import ragauge
from ragauge.cli.main import cli
from ragauge.comparison import compare
from ragauge.comparison.judged import JUDGED_DROP
from ragauge.core.notes import LOUD
from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.errors import InputError
from ragauge.evaluation.result import Evaluation
from ragauge.metrics.judged import judged_at
from tests.metrics.strategies import eval_cases
from tests.metrics.test_crosscheck import _golden, _run

# 20 questions; each labels its answer a{i} (grade 1) and two documents judged not relevant (grade 0)
GOLDEN = GoldenSet.from_queries(
    GoldenQuery(f"q{i}", f"question {i}", {f"a{i}": 1, f"n{i}": 0, f"m{i}": 0}) for i in range(20))


def ranking(i: int, unlabelled: int) -> list[str]:
    """Question i's top 5: its answer first, then ``unlabelled`` documents nobody judged, then judged ones."""
    judged = [f"n{i}", f"m{i}", f"a{i}"]
    return [f"a{i}", *[f"u{i}-{j}" for j in range(unlabelled)], *judged[:2]][:5] + [f"z{i}-{j}" for j in range(5)]


def runs(base_unlabelled: int, new_unlabelled: int) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    return ({f"q{i}": ranking(i, base_unlabelled) for i in range(20)},
            {f"q{i}": ranking(i, new_unlabelled) for i in range(20)})


def loud(notes: list[str]) -> list[str]:
    return [n for n in notes if n.startswith(LOUD)]


def test_a_new_run_retrieving_unjudged_documents_is_flagged_with_its_figures() -> None:
    base, new = runs(0, 2)  # top 5: base a n m z z -> judged@5 3/5; new a u u n m -> 3/5; judged@3 1 vs 1/3
    c = compare(base, new, golden=GOLDEN, k=3)
    [note] = loud(c.notes)
    assert note == (f"{LOUD}the new run retrieves 67% unjudged documents in its top 3 against 0% for the base "
                    "(mean judged@3 0.333 vs 1.000, over 20 question(s) both runs answered): they count as not "
                    "relevant, so the new run's scores are a lower bound; pool them for labelling with ragauge "
                    "golden pool GOLDEN --run BASE --run NEW, judge them (grade 0 for not relevant) and compare again")
    assert c.metrics["hit@3"].diff == 0  # the answer is still first: nothing else changed


def test_the_cutoff_with_the_largest_drop_is_named() -> None:
    base, new = runs(0, 2)
    c = compare(base, new, golden=GOLDEN, metrics="hit@1,ndcg@3,recall@5")
    [note] = loud(c.notes)
    assert "in its top 3 " in note  # judged@1: no drop; judged@3: -0.667; judged@5: 0.6 vs 0.6


def test_no_note_below_the_threshold_or_when_the_new_run_is_better_judged() -> None:
    base, new = runs(0, 0)
    assert loud(compare(base, new, golden=GOLDEN, k=3).notes) == []
    assert loud(compare(*reversed(runs(0, 2)), golden=GOLDEN, k=3).notes) == []
    # one question in ten loses one judged document of its top 1: a drop of 0.10 exactly, the threshold
    new = dict(base)
    for i in (0, 1):
        new[f"q{i}"] = [f"u{i}", *base[f"q{i}"]]
    c = compare(base, new, golden=GOLDEN, k=1)
    assert JUDGED_DROP == 0.10 and "0.900 vs 1.000" in loud(c.notes)[0]
    new["q1"] = base["q1"]  # 0.05: no note
    assert loud(compare(base, new, golden=GOLDEN, k=1).notes) == []


def test_questions_a_run_did_not_answer_are_left_out_of_the_check() -> None:
    base, new = runs(0, 0)
    for i in range(10):
        new[f"q{i}"] = []  # nothing retrieved: no share of unjudged documents, not 100 % unjudged
    assert loud(compare(base, new, golden=GOLDEN, k=3).notes) == []


def test_saved_results_and_judged_at_k_deeper_than_the_kept_documents(tmp_path: Path) -> None:
    base, new = runs(0, 2)
    for name, run in (("base", base), ("new", new)):
        ev = ragauge.evaluate_run(GOLDEN, run, metrics="hit@1,recall@25,judged@25")
        (tmp_path / f"{name}.json").write_text(json.dumps(ev.to_dict()), encoding="utf-8")
    # recall@25 alone: judged@25 is read from the results (10 documents each, all kept)
    c = compare(tmp_path / "base.json", tmp_path / "new.json", metrics="recall@25")
    assert loud(c.notes) == []  # judged@25: 3/8 vs 3/10 (divisor: what came back), a drop under 0.10
    # a result that kept fewer documents than a cutoff needs judged@k itself
    data = json.loads((tmp_path / "new.json").read_text(encoding="utf-8"))
    for q in data["queries"]:
        q["top"] = q["top"][:3]
    trimmed = Evaluation.from_dict({**data, "metrics": ["hit@1", "recall@25"]})
    base_ev = ragauge.read_result(tmp_path / "base.json")
    c = compare(base_ev, trimmed, metrics="recall@25")
    assert [n for n in c.notes if "not checked" in n] == [
        "unjudged documents not checked: the results keep fewer than 25 documents per question; evaluate both with "
        "judged@k among --metrics to check them"]
    c = compare(base_ev, Evaluation.from_dict(data), metrics="recall@25")  # judged@25 in both
    assert loud(c.notes) == [] and not [n for n in c.notes if "not checked" in n]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=eval_cases())
def test_judged_at_from_the_kept_documents_is_the_metric(case) -> None:
    """The check counts judged@k from each question's kept documents when a result lacks the
    metric: that count must be the engine's value."""
    if not set(case.hits) & set(case.relevant):
        return
    specs = [f"judged@{k}" for k in case.ks]
    ev = ragauge.evaluate_run(_golden(case.relevant), _run(case.hits), metrics=specs, fetch=case.fetch)
    for q in ev.queries:
        for spec in specs:
            k = int(spec.split("@")[1])
            labelled = (r.grade is not None for r in q.top)
            assert judged_at(labelled, q.n_unique, k) == pytest.approx(q.values[spec], abs=1e-12)


def test_results_under_different_unjudged_rules_are_not_compared() -> None:
    base, new = runs(0, 0)
    a = ragauge.evaluate_run(GOLDEN, base, k=3)
    b = ragauge.evaluate_run(GOLDEN, new, k=3, unjudged="unknown")
    with pytest.raises(InputError, match="different contracts \\(unjudged differ\\)"):
        compare(a, b)
    assert "contracts differ in unjudged" in compare(a, b, allow_different_golden=True).notes


def test_a_result_saved_before_the_rule_existed_reads_as_non_relevant() -> None:
    base, new = runs(0, 0)
    old = ragauge.evaluate_run(GOLDEN, base, k=3).to_dict()
    del old["meta"]["contract"]["unjudged"]
    compare(Evaluation.from_dict(old), ragauge.evaluate_run(GOLDEN, new, k=3))  # no refusal
    with pytest.raises(InputError, match="unjudged differ"):
        compare(Evaluation.from_dict(old), ragauge.evaluate_run(GOLDEN, new, k=3, unjudged="unknown"))


def test_cli_compare_scores_both_runs_under_the_rule_and_writes_the_note(tmp_path: Path) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text("".join(json.dumps(q.to_dict()) + "\n" for q in GOLDEN), encoding="utf-8")
    paths = []
    for name, run in zip(("base", "new"), runs(0, 2)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"id": q, "hits": docs}) + "\n" for q, docs in run.items()),
                        encoding="utf-8")
        paths.append(str(path))
    args = ["compare", *paths, "--golden", str(golden), "-k", "3", "--format", "json"]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["meta"]["contract"]["unjudged"] == "non-relevant"
    assert any(n.startswith(LOUD) and "67% unjudged" in n for n in data["notes"])
    out = CliRunner().invoke(cli, [*args, "--unjudged", "unknown"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["meta"]["contract"]["unjudged"] == "unknown"
    assert any("they were left out before scoring" in n for n in data["notes"])
    bad = CliRunner().invoke(cli, [*args, "--unjudged", "maybe"])
    assert bad.exit_code == 2 and "maybe" in bad.output


def test_a_golden_set_without_non_relevant_labels_is_named_in_the_note() -> None:
    golden = GoldenSet.from_queries(GoldenQuery(f"q{i}", f"question {i}", {f"a{i}": 1}) for i in range(20))
    base = {f"q{i}": [f"a{i}", "x"] for i in range(20)}
    new = {f"q{i}": ["y", f"a{i}"] for i in range(20)}  # answer pushed down by an unlabelled document
    [note] = loud(compare(base, new, golden=golden, k=1).notes)
    assert "label no document as not relevant, so judged@k falls with precision@k" in note
    assert "label no document" not in loud(compare(*runs(0, 2), golden=GOLDEN, k=3).notes)[0]
