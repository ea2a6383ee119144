"""``ragauge power``: the minimum detectable effect and the questions an effect needs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.comparison.power import PowerReport
from ragauge.stats.power import Differences, minimum_detectable_effect, required_questions, sd_from_one_run

EXAMPLE = Path(__file__).parents[2] / "examples" / "scifact"
GOLDEN = EXAMPLE / "golden.jsonl"
RUN = EXAMPLE / "bm25.run.jsonl"
OTHER = EXAMPLE / "bm25-nostem.run.jsonl"


def test_one_run_uses_its_spread_and_the_assumed_correlation() -> None:
    report = ragauge.power(GOLDEN, RUN, metrics="recall@10", effect=0.03)
    p = report.metrics["recall@10"]
    values = ragauge.evaluate_run(GOLDEN, RUN, metrics=["recall@10"]).column("recall@10")
    sd = sd_from_one_run(float(values.std(ddof=1)))
    assert p.n == 300 and p.sd_diff == pytest.approx(sd, rel=0.1)  # the one-run model's spread, sampled
    model = Differences.one_run(values)
    assert p.mde == minimum_detectable_effect(model, 300)
    assert p.needed == required_questions(model, 0.03)
    closer = ragauge.power(GOLDEN, RUN, metrics="recall@10", correlation=0.9).metrics["recall@10"]
    assert closer.mde is not None and p.mde is not None and closer.mde < p.mde


def test_two_runs_use_their_paired_differences() -> None:
    report = ragauge.power(GOLDEN, OTHER, new=RUN, metrics="recall@10")
    diffs = (ragauge.evaluate_run(GOLDEN, RUN, metrics=["recall@10"]).column("recall@10")
             - ragauge.evaluate_run(GOLDEN, OTHER, metrics=["recall@10"]).column("recall@10"))
    assert report.metrics["recall@10"].sd_diff == pytest.approx(float(diffs.std()))
    assert "paired differences" in report.meta["spread"]


def test_power_scores_as_the_comparison_it_plans_for(tmp_path: Path) -> None:
    """unjudged and grades reach the evaluation power simulates from, as compare and the gate apply them."""
    golden = tmp_path / "g.jsonl"
    golden.write_text("".join(f'{{"id": "q{i}", "query": "x", "relevant": {{"d{i}": 2, "n{i}": 0}}}}\n'
                              for i in range(30)))
    run = tmp_path / "r.jsonl"
    run.write_text("".join(f'{{"id": "q{i}", "hits": ["u{i}", "{"d" if i % 3 else "n"}{i}"]}}\n' for i in range(30)))
    args = dict(new=None, metrics="hit@1", correlation=0.5)
    plain = ragauge.power(golden, run, **args).metrics["hit@1"]  # type: ignore[arg-type]
    condensed = ragauge.power(golden, run, unjudged="unknown", **args).metrics["hit@1"]  # type: ignore[arg-type]
    expected = ragauge.evaluate_run(golden, run, metrics=["hit@1"], unjudged="unknown").column("hit@1")
    assert plain.mde != condensed.mde
    assert condensed.mde == minimum_detectable_effect(Differences.one_run(expected, 0.5), 30)
    out = CliRunner().invoke(cli, ["power", str(golden), "--run", str(run), "--metrics", "hit@1",
                                   "--unjudged", "unknown", "--format", "json"])
    assert out.exit_code == 0 and json.loads(out.stdout)["metrics"]["hit@1"]["mde"] == condensed.mde


def test_cli_text_json_and_tags(tmp_path: Path) -> None:
    golden = tmp_path / "g.jsonl"
    lines = [f'{{"id": "q{i}", "query": "x", "relevant": ["d{i}"], "tags": ["{"big" if i < 40 else "mobile"}"]}}'
             for i in range(42)]
    golden.write_text("\n".join(lines) + "\n")
    run = tmp_path / "r.jsonl"
    run.write_text("".join(f'{{"id": "q{i}", "hits": ["{"d" if i % 3 else "x"}{i}"]}}\n' for i in range(42)))
    out = CliRunner().invoke(cli, ["power", str(golden), "--run", str(run), "--metrics", "hit@5", "--effect", "0.1"])
    assert out.exit_code == 0, out.output
    assert "with 42 questions, hit@5 differences smaller than ±" in out.stdout
    assert "tag 'mobile' (n = 2) cannot detect anything" in out.stdout and "questions for ±0.1" in out.stdout
    data = json.loads(CliRunner().invoke(cli, ["power", str(golden), "--run", str(run), "--format", "json"]).stdout)
    back = PowerReport.from_dict(data)
    assert back.by_tag["mobile"]["hit@5"].mde is None and back.metrics["hit@5"].n == 42


@pytest.mark.parametrize(("args", "error"), [
    (["--correlation", "1"], "correlation"),
    (["--effect", "2"], "effect"),
    (["--alpha", "0"], "alpha"),
    (["--run", str(RUN), "--run", str(RUN)], "one or two runs"),
])
def test_bad_options_are_exit_2(args: list[str], error: str) -> None:
    out = CliRunner().invoke(cli, ["power", str(GOLDEN), "--run", str(RUN), *args])
    assert out.exit_code == 2 and error in out.stderr and "Traceback" not in out.output


def test_power_reads_the_columns_and_the_questions_without_making_rows(rows_made: list[int]) -> None:
    """Power figures need each question's id, tags and values: it made every row of a fresh
    evaluation twice (16,000 rows for 8,000 questions) and reads them from the columns now, with
    the same figures as from the saved results."""
    import numpy as np

    from ragauge.comparison.power import power_of
    from ragauge.evaluation.result import Evaluation
    from ragauge.reports.render import render

    golden = [{"id": f"q{i}", "query": "x", "relevant": [f"d{i % 9}"], "tags": [f"t{i % 4}"]} for i in range(80)]
    rng = np.random.default_rng(2)
    base, new = (ragauge.evaluate_run(golden, {g["id"]: [f"d{j}" for j in rng.permutation(12)[:5]] for g in golden},
                                      metrics="hit@3,mrr") for _ in range(2))
    saved = [Evaluation.from_dict(json.loads(render(e, "json"))) for e in (base, new)]
    made = rows_made
    made.clear()  # from here
    for other, saved_other in ((None, None), (new, saved[1])):
        report = power_of(base, other, effect=0.05)
        assert report.to_dict() == power_of(saved[0], saved_other, effect=0.05).to_dict()
        assert set(report.by_tag) == {"t0", "t1", "t2", "t3"}
    assert made == []


def test_a_saved_result_that_repeats_an_id_counts_every_row_overall_as_in_its_tags() -> None:
    """A saved result may hold an id twice (its reader does not refuse it): the overall figures
    count every row, as the per-tag figures do (the ids are read row by row, not through a dict)."""
    from ragauge.comparison.power import power_of
    from ragauge.evaluation.result import Evaluation
    from ragauge.reports.render import render

    golden = [{"id": f"q{i}", "query": "x", "relevant": [f"d{i % 3}"], "tags": ["all"]} for i in range(12)]
    run = {g["id"]: [f"d{(i + j) % 5}" for j in range(4)] for i, g in enumerate(golden)}
    d = json.loads(render(ragauge.evaluate_run(golden, run, metrics="mrr"), "json"))
    d["queries"] = [d["queries"][0], {**d["queries"][1], "id": d["queries"][0]["id"]}, *d["queries"][2:]]
    saved = Evaluation.from_dict(d)
    report = power_of(saved)
    assert report.metrics["mrr"].n == report.by_tag["all"]["mrr"].n == len(saved.queries) == 12
