"""eval --auto-labels: the prediction-powered estimates are stats.ppi's on the two values of each question,
the human-only figures a plain evaluation of the labelled questions, the assessor's agreement golden
agreement's; without human labels the assessor only "says"; holes in the labelled questions' top k are
counted (and filled only under --unjudged unknown); bad input exits 2 with file:line and a fix; the result
round-trips through its JSON. Every file is real (tests/predicted/world.py), every label made by golden
assess."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.core.notes import LOUD
from ragauge.stats.ppi import ppi_mean
from tests.predicted import world


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return world.make(tmp_path_factory.mktemp("world"))


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def labelled_only(files: dict[str, Path], folder: Path) -> Path:
    """The golden set's human-labelled questions alone: what a plain evaluation can score."""
    labelled = [x for x in lines(files["golden"]) if x["relevant"] is not None]
    return world.write_jsonl(folder / "labelled.jsonl", labelled)


def automatic_golden(files: dict[str, Path], folder: Path) -> Path:
    """Every question with the assessor's labels as its labels, written by hand from the labels file."""
    labels: dict[str, dict[str, float]] = {}
    for x in lines(files["auto"]):
        labels.setdefault(x["question"], {})[x["doc_id"]] = x["grade"]
    return world.write_jsonl(folder / "automatic.jsonl", [{"id": x["id"], "query": x["query"],
                                                           "relevant": labels.get(x["id"], {})}
                                                          for x in lines(files["golden"])])


def test_the_estimates_are_stats_ppi_on_the_two_values_of_each_question(files: dict[str, Path],
                                                                        tmp_path: Path) -> None:
    ev = ragauge.evaluate_run(files["golden"], files["bad"], k=5, auto_labels=files["auto"])
    human = ragauge.evaluate_run(labelled_only(files, tmp_path), files["bad"], k=5)
    auto = ragauge.evaluate_run(automatic_golden(files, tmp_path), files["bad"], k=5)
    labelled = [f"q{i:02d}" for i in world.LABELLED]
    unlabelled = [f"q{i:02d}" for i in range(world.QUESTIONS) if i not in world.LABELLED]
    ppi = ev.meta["ppi"]
    assert ppi["questions"] == {"labelled": 12, "unlabelled": 28} and ppi["unlabelled"] == unlabelled
    assert ppi["method"] == "betting" and "valid at every n" in ppi["method_text"]
    assert ppi["target"] == "golden-set" and "golden set's own questions" in ppi["target_text"]
    for m in ev.metrics:
        y = human.column(m, labelled)
        yhat = np.array([auto.column(m, [q])[0] if q in auto.positions else 0.0 for q in [*labelled, *unlabelled]])
        direct = ppi_mean(y, yhat[:12], yhat[12:], method="betting", target="golden-set")
        got = ppi["metrics"][m]
        assert got["estimate"] == pytest.approx(direct.estimate, abs=1e-12)
        assert got["interval"] == pytest.approx(list(direct.interval), abs=1e-12)
        assert got["human"] == pytest.approx(direct.classical) and got["human"] == pytest.approx(ev.summary[m])
        assert got["human_interval"] == pytest.approx(list(direct.classical_interval), abs=1e-12)
        assert got["effective_n"] == pytest.approx(direct.effective_n) and got["lambda"] == pytest.approx(direct.lam)
        assert got["wider"] == (direct.width_ratio > 1.0)
        assert [ppi["automatic"][q][m] for q in [*labelled, *unlabelled]] == pytest.approx(list(yhat))
    # the figures themselves, for the record: this assessor is good (kappa 0.86) and n is 12, so PPI moves the
    # estimate but is not narrower than the human-only interval; the warning says so
    assert ppi["metrics"]["ndcg@5"]["estimate"] != ev.summary["ndcg@5"]
    assert any(w.startswith(LOUD + "the prediction-powered interval is wider") for w in ev.warnings)


def test_the_human_only_figures_are_a_plain_evaluation_of_the_labelled_questions(files: dict[str, Path],
                                                                                 tmp_path: Path) -> None:
    ev = ragauge.evaluate_run(files["golden"], files["bad"], k=[1, 5], auto_labels=files["auto"])
    plain = ragauge.evaluate_run(labelled_only(files, tmp_path), files["bad"], k=[1, 5])
    assert ev.summary == plain.summary and ev.by_tag == plain.by_tag
    assert list(ev.query_dicts()) == list(plain.query_dicts()) and ev.no_answer == plain.no_answer
    assert ev.failure_table == plain.failure_table
    golden = ragauge.load_golden(files["golden"], unlabelled=True)
    assert ev.meta["golden"] == {"path": str(files["golden"]), "hash": golden.content_hash, "questions": 40}
    assert ev.meta["counts"]["unlabelled"] == 28 and ev.meta["counts"]["answerable"] == 12
    assert ev.meta["judged"]["human"] == pytest.approx(plain.meta["judged"]["mean"]) == ev.meta["judged"]["mean"]
    assert ev.meta["judged"]["human"] + ev.meta["judged"]["automatic"] == pytest.approx(1.0)  # both runs assessed


def test_the_assessor_s_agreement_is_golden_agreement_s(files: dict[str, Path]) -> None:
    ev = ragauge.evaluate_run(files["golden"], files["good"], k=5, auto_labels=files["auto"])
    audit = ragauge.assessor_agreement(files["golden"], files["auto"])
    agreement = ev.meta["ppi"]["agreement"]
    assert agreement["kappa"] == pytest.approx(audit.overall.kappa)
    assert (agreement["pairs"], agreement["questions"]) == (audit.overall.pairs, audit.overall.questions)


def test_without_any_human_label_the_assessor_only_says(files: dict[str, Path], tmp_path: Path) -> None:
    none = world.write_jsonl(tmp_path / "none.jsonl", [{**x, "relevant": None} for x in lines(files["golden"])])
    ev = ragauge.evaluate_run(none, files["bad"], k=5, auto_labels=files["auto"])  # same questions: same hash
    assert all(math.isnan(v) for v in ev.summary.values()) and len(ev.queries) == 0 and ev.no_answer["n"] == 0
    auto = ragauge.evaluate_run(automatic_golden(files, tmp_path), files["bad"], k=5)
    says = ev.meta["ppi"]["assessor_says"]
    assert says["n"] == 40
    assert says["ndcg@5"] == pytest.approx(auto.column("ndcg@5").sum() / 40)  # 0 where it sees nothing relevant
    assert ev.warnings[0].startswith(LOUD + "no question carries a human label, so nothing here is a measurement")
    assert all(e.get("estimate") is None for e in ev.meta["ppi"].get("metrics", {}).values())
    text = ragauge.render(ev, "text")
    assert "What the assessor says (not a measurement)" in text and "Prediction-powered estimates" not in text
    assert "none of the 40 question(s) has a relevant document" not in text  # unlabelled is not no-answer


def test_holes_are_counted_and_filled_only_when_unjudged_documents_are_unknown(files: dict[str, Path],
                                                                               tmp_path: Path) -> None:
    grades = {(x["question"], x["doc_id"]): x["grade"] for x in lines(files["auto"])}
    golden = {x["id"]: x for x in lines(files["golden"])}
    top = world.run(False)
    holes = [(q, d) for q, docs in top.items() if golden[q]["relevant"] is not None
             for d in docs[:5] if d not in golden[q]["relevant"]]
    assert holes and all(h in grades for h in holes)
    relevant = sum(grades[h] >= 1 for h in holes)
    assert relevant  # the assessor calls some of them relevant (every fifth partial document)
    kept = ragauge.evaluate_run(files["golden"], files["bad"], k=5, auto_labels=files["auto"])
    cover = kept.meta["ppi"]["coverage"]
    assert (cover["holes"], cover["holes_relevant"], cover["filled"]) == (len(holes), relevant, False)
    assert any(w.startswith(LOUD) and f"the assessor calls {relevant} of them relevant" in w for w in kept.warnings)

    filled = ragauge.evaluate_run(files["golden"], files["bad"], k=5, auto_labels=files["auto"], unjudged="unknown")
    by_hand = [{**x, "relevant": {**x["relevant"], **{d: grades[(x["id"], d)] for q, d in grades
                                                       if q == x["id"] and d not in x["relevant"]}}}
               for x in lines(files["golden"]) if x["relevant"] is not None]
    plain = ragauge.evaluate_run(world.write_jsonl(tmp_path / "filled.jsonl", by_hand), files["bad"], k=5,
                                 unjudged="unknown")
    assert filled.summary == plain.summary and filled.summary != kept.summary
    assert filled.meta["ppi"]["coverage"]["filled"] and filled.meta["ppi"]["coverage"]["holes"] == len(holes)
    assert any(w.startswith(LOUD) and "took the assessor's" in w for w in filled.warnings)
    judged = filled.meta["judged"]
    assert judged["mean"] == pytest.approx(judged["human"] + judged["automatic"])  # the filled ones count
    assert "by the assessor only" in ragauge.render(filled, "text")


def test_the_result_round_trips_and_every_format_shows_ppi_beside_human_only(files: dict[str, Path],
                                                                            tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    result = CliRunner().invoke(cli, ["eval", str(files["golden"]), "--run", str(files["bad"]), "-k", "5",
                                      "--auto-labels", str(files["auto"]), "--format", "json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert LOUD + "the prediction-powered interval is wider" in result.output  # loud notes reach stderr
    back = ragauge.read_result(out)
    direct = ragauge.evaluate_run(files["golden"], files["bad"], k=5, auto_labels=files["auto"])
    assert back.meta["ppi"] == json.loads(json.dumps(direct.meta["ppi"])) and back.summary == direct.summary
    for fmt in ("text", "markdown", "html"):
        page = ragauge.render(back, fmt)
        assert "Prediction-powered estimates" in page and "human-only (n=12)" in page and "PPI (12 + 28)" in page
        assert "weighted kappa 0.8" in page and "x wider" in page
    assert ragauge.render(back, "text") == ragauge.render(direct, "text")


def test_a_retriever_is_asked_every_question_labelled_or_not(files: dict[str, Path]) -> None:
    ranking = world.run(True)
    asked: list[str] = []

    def retriever(query: str, n: int) -> list[str]:
        asked.append(query)
        return next(docs for q, docs in ranking.items() if query.endswith(f" {int(q[1:])}"))[:n]

    ev = ragauge.evaluate(files["golden"], retriever, k=5, auto_labels=files["auto"])
    assert len(asked) == world.QUESTIONS and ev.meta["ppi"]["questions"] == {"labelled": 12, "unlabelled": 28}
    assert ev.summary == ragauge.evaluate_run(files["golden"], files["good"], k=5, auto_labels=files["auto"]).summary


# --- bad input: exit 2, file:line, what is wrong, how to fix -----------------------------------------------------

def _eval(golden: Path, run: Path, *args: str) -> Any:
    return CliRunner().invoke(cli, ["eval", str(golden), "--run", str(run), "-k", "5", *args])


def test_an_unlabelled_question_without_automatic_labels_is_refused(files: dict[str, Path]) -> None:
    result = _eval(files["golden"], files["bad"])
    assert result.exit_code == 2, result.output
    assert f"{files['golden']}:2: 'relevant' is null: question 'q01' is unlabelled" in result.output
    assert "--auto-labels auto.jsonl" in result.output and "Traceback" not in result.output
    golden = ragauge.load_golden(files["golden"], unlabelled=True)
    with pytest.raises(ragauge.InputError) as info:  # a set read so, scored without automatic labels
        ragauge.evaluate_run(golden, files["bad"])
    assert info.value.where == f"{files['golden']}:2" and "28 question(s) are unlabelled" in info.value.message


@pytest.mark.parametrize("edit, says", [
    (lambda rows: rows[2].update(v=2), ":3: unknown automatic-labels version 2"),
    (lambda rows: rows[1].update(assessor="bing@4"), ":2: unknown assessor 'bing'"),
    (lambda rows: rows.append({**rows[0], "question": "q99"}), "a label for question 'q99', which the golden set "
                                                               "does not hold"),
    (lambda rows: [r.pop("golden") for r in rows], ":1: the automatic labels do not say which golden set"),
])
def test_bad_automatic_labels_are_refused(files: dict[str, Path], tmp_path: Path, edit: Any, says: str) -> None:
    rows = lines(files["auto"])
    edit(rows)
    bad = world.write_jsonl(tmp_path / "auto.jsonl", rows)
    result = _eval(files["golden"], files["bad"], "--auto-labels", str(bad))
    assert result.exit_code == 2 and f"{bad}:" in result.output and says in result.output, result.output
    assert "hint:" in result.output and "Traceback" not in result.output


def test_automatic_labels_of_another_golden_set_are_refused(files: dict[str, Path], tmp_path: Path) -> None:
    rows = lines(files["golden"])
    rows[5]["query"] += " (reworded)"
    other = world.write_jsonl(tmp_path / "golden.jsonl", rows)
    result = _eval(other, files["bad"], "--auto-labels", str(files["auto"]))
    assert result.exit_code == 2, result.output
    assert f"{files['auto']}:1: the automatic labels were assessed for another golden set" in result.output
    assert "golden assess" in result.output and "hint:" in result.output


def test_holes_of_a_set_that_lists_relevant_documents_only_are_judged_by_its_convention(files: dict[str, Path],
                                                                                       tmp_path: Path) -> None:
    only = [{**x, "relevant": {d: g for d, g in x["relevant"].items() if g >= 1}} if x["relevant"] else x
            for x in lines(files["golden"])]
    ev = ragauge.evaluate_run(world.write_jsonl(tmp_path / "only.jsonl", only), files["bad"], k=5,
                              auto_labels=files["auto"])
    said = [w for w in ev.warnings if "are not listed and count as not relevant" in w]
    assert len(said) == 1 and not said[0].startswith(LOUD) and "lists relevant documents only" in said[0]


def test_with_few_labelled_questions_the_report_says_the_interval_is_the_human_only_one(files: dict[str, Path],
                                                                                       tmp_path: Path) -> None:
    """With 10 labelled questions or fewer the golden-set interval learns nothing from the assessor (its
    lambda is 0 for the first stats.finite.WARM_UP pairs): the report says so beside the effective labels."""
    few = world.write_jsonl(tmp_path / "few.jsonl", world.golden_lines(world.LABELLED[:8]))
    ev = ragauge.evaluate_run(few, files["bad"], k=5, auto_labels=files["auto"])
    entry = ev.meta["ppi"]["metrics"]["ndcg@5"]
    assert entry["interval"] == entry["human_interval"] and "uses no automatic value" in entry["interval_note"]
    assert ragauge.render(ev, "text").count("uses no automatic value") == 1
    many = ragauge.evaluate_run(files["golden"], files["bad"], k=5, auto_labels=files["auto"])
    assert "interval_note" not in many.meta["ppi"]["metrics"]["ndcg@5"]
