from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.comparison import Comparison, compare
from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.data.hits import Hit, QueryResult
from ragauge.data.run import Run
from ragauge.errors import InputError

EXAMPLE = Path(__file__).parents[2] / "examples" / "scifact"

GOLDEN = GoldenSet.from_queries(
    [GoldenQuery(f"q{i}", f"question {i}", {f"d{i}": 1}, ("even" if i % 2 == 0 else "odd",)) for i in range(40)]
)


def run_with_ranks(ranks: dict[str, int]) -> Run:
    """Each question's relevant document placed at the given 1-based rank among fillers."""
    results = []
    for q in GOLDEN:
        r = ranks[q.id]
        hits = [Hit(f"x{j}") for j in range(1, 11)]
        hits.insert(r - 1, Hit(next(iter(q.relevant))))
        results.append(QueryResult(q.id, tuple(hits[:10])))
    return Run.from_results(results)


def test_identical_runs_show_no_change() -> None:
    e = ragauge.evaluate_run(GOLDEN, run_with_ranks({q.id: 3 for q in GOLDEN}), k=5)
    c = compare(e, e)
    for d in c.metrics.values():
        assert d.diff == 0 and d.ci[0] <= 0.0 <= d.ci[1] and d.p_value == 1.0 and d.tied == 40
        assert d.verdict == "no question changed"
        assert d.mde is not None and d.mde > 0  # nothing varies: the resolution of one question changing
        assert d.ci[0] < -0.05 and d.ci[1] > 0.05  # 40 unchanged questions cannot rule out a small change
    assert c.metrics["hit@5"].method.startswith("betting")
    assert c.worse_queries == []


def test_a_clear_improvement_and_the_questions_that_got_worse() -> None:
    base = ragauge.evaluate_run(GOLDEN, run_with_ranks({q.id: 8 for q in GOLDEN}), k=5)
    ranks = {q.id: 1 for q in GOLDEN}
    ranks["q3"] = 10  # one question gets worse
    new = ragauge.evaluate_run(GOLDEN, run_with_ranks(ranks), k=5)
    c = compare(base, new)
    hit = c.metrics["hit@5"]
    assert (hit.better, hit.worse, hit.tied) == (39, 0, 1)
    assert hit.diff == pytest.approx(39 / 40) and hit.ci[0] > 0 and hit.p_adjusted < 0.05
    assert hit.verdict == "better (significant)"
    assert [q["id"] for q in c.worse_queries] == ["q3"]
    worse = c.worse_queries[0]
    assert (worse["base_rank"], worse["new_rank"]) == (8, 10)
    assert worse["displaced_by"] == ["x8", "x9"]  # new above the relevant doc, not above it before
    assert set(c.by_tag) == {"even", "odd"}
    # Holm: every adjusted p is at least its raw p
    assert all(d.p_adjusted >= d.p_value for t in c.by_tag.values() for d in t.values())


def test_fresh_evaluations_are_compared_with_each_row_made_once(rows_made: list[int]) -> None:
    """A fresh evaluation holds its rows column-wise and makes a row each time it is read: the
    comparison read each row four or more times, one at a time (6,980 questions: 7.5 s against
    3.9 s once made). Each row is now made once, and the comparison is the saved results'."""

    from ragauge.evaluation.result import Evaluation
    from ragauge.evaluation.rows import QueryRows
    from ragauge.reports.render import render

    base = ragauge.evaluate_run(GOLDEN, run_with_ranks({q.id: 8 for q in GOLDEN}), k=5)
    new = ragauge.evaluate_run(GOLDEN, run_with_ranks({q.id: (1 if i % 3 else 9) for i, q in enumerate(GOLDEN)}), k=5)
    assert isinstance(base.queries, QueryRows)
    saved = [Evaluation.from_dict(json.loads(render(e, "json"))) for e in (base, new)]
    made = rows_made
    made.clear()  # from here
    c = compare(base, new)
    assert sum(made) == 2 * len(GOLDEN)
    assert c.worse_queries and c.to_dict() == compare(*saved).to_dict()


def test_refuses_different_golden_sets_unless_allowed() -> None:
    other = GoldenSet.from_queries(list(GOLDEN)[:30])
    a = ragauge.evaluate_run(GOLDEN, run_with_ranks({q.id: 1 for q in GOLDEN}), k=5)
    b = ragauge.evaluate_run(other, run_with_ranks({q.id: 1 for q in GOLDEN}), k=5)
    with pytest.raises(InputError, match="different golden sets"):
        compare(a, b)
    c = compare(a, b, allow_different_golden=True)
    assert c.meta["paired_questions"] == 30 and any("different golden sets" in n for n in c.notes)


def test_refuses_different_contracts() -> None:
    run = run_with_ranks({q.id: 1 for q in GOLDEN})
    with pytest.raises(InputError, match="fetch"):
        compare(ragauge.evaluate_run(GOLDEN, run, k=5), ragauge.evaluate_run(GOLDEN, run, k=5, fetch=3))


def test_cli_compares_example_runs_in_every_format(tmp_path: Path) -> None:
    args = ["compare", str(EXAMPLE / "bm25-nostem.run.jsonl"), str(EXAMPLE / "bm25.run.jsonl"),
            "--golden", str(EXAMPLE / "golden.jsonl"), "-k", "10"]
    text = CliRunner().invoke(cli, args)
    assert text.exit_code == 0, text.output
    assert "ndcg@10" in text.stdout and "got worse" in text.stdout and "latency" in text.stdout
    out = CliRunner().invoke(cli, [*args, "--format", "json"])
    data = json.loads(out.stdout)
    m = data["metrics"]["ndcg@10"]
    assert m["diff"] == pytest.approx(m["new"] - m["base"])
    assert m["ci"][0] <= m["diff"] <= m["ci"][1]
    assert set(m) >= {"base", "new", "diff", "ci", "p_value", "p_adjusted", "better", "worse", "tied"}
    assert data["worse_queries"] and data["latency"]["base"]["p50"] > 0
    md = CliRunner().invoke(cli, [*args, "--format", "markdown"])
    assert md.stdout.startswith("### ragauge compare") and "<details>" in md.stdout


def test_cli_compares_saved_results(tmp_path: Path) -> None:
    for name in ("bm25", "bm25-nostem"):
        r = CliRunner().invoke(cli, ["eval", str(EXAMPLE / "golden.jsonl"), "--run", str(EXAMPLE / f"{name}.run.jsonl"),
                                     "-k", "10", "--format", "json", "-o", str(tmp_path / f"{name}.json")])
        assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["compare", str(tmp_path / "bm25-nostem.json"), str(tmp_path / "bm25.json"),
                                ])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["compare", str(EXAMPLE / "bm25.run.jsonl"), str(tmp_path / "bm25.json")])
    assert r.exit_code == 2 and "--golden is needed" in r.stderr


def test_html_comparison_is_offline_and_escaped(tmp_path: Path) -> None:
    import html.parser
    import re

    args = ["compare", str(EXAMPLE / "bm25-nostem.run.jsonl"), str(EXAMPLE / "bm25.run.jsonl"),
            "--golden", str(EXAMPLE / "golden.jsonl"), "-k", "10", "--format", "html"]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    page = out.stdout
    html.parser.HTMLParser().feed(page)
    assert "<script" not in page and not re.search(r"(?:src|href)=\"(?!data:)", page)
    assert "Content-Security-Policy" in page and "ndcg@10" in page and "got worse" in page
    golden = tmp_path / "g.jsonl"
    ids = [f"q<b>{i}" for i in range(6)]  # a comparison needs 6 questions (see test_refuses_too_few_questions)
    golden.write_text("".join(f'{{"id": "{i}", "query": "<script>alert(1)</script>", "relevant": ["a"]}}\n'
                              for i in ids))
    for name, hits in (("base", '["a"]'), ("new", '["x", "a"]')):
        (tmp_path / f"{name}.jsonl").write_text("".join(f'{{"id": "{i}", "hits": {hits}}}\n' for i in ids))
    out = CliRunner().invoke(cli, ["compare", str(tmp_path / "base.jsonl"), str(tmp_path / "new.jsonl"), "--golden",
                                   str(golden), "--format", "html"])
    assert out.exit_code == 0, out.output
    assert "<script>alert" not in out.stdout and "&lt;script&gt;alert(1)&lt;/script&gt;" in out.stdout


def test_refuses_too_few_questions_to_test(tmp_path: Path) -> None:
    five = GoldenSet.from_queries(list(GOLDEN)[:5])
    e = ragauge.evaluate_run(five, run_with_ranks({q.id: 1 for q in GOLDEN}), k=5)
    with pytest.raises(InputError, match="only 5 question"):
        compare(e, e)
    golden = tmp_path / "g.jsonl"
    golden.write_text("".join(f'{{"id": "q{i}", "query": "x", "relevant": ["a"]}}\n' for i in range(3)))
    (tmp_path / "r.jsonl").write_text("".join(f'{{"id": "q{i}", "hits": ["a"]}}\n' for i in range(3)))
    out = CliRunner().invoke(cli, ["compare", str(tmp_path / "r.jsonl"), str(tmp_path / "r.jsonl"), "--golden",
                                   str(golden)])
    assert out.exit_code == 2 and "no test at alpha 0.05 can tell" in out.stderr and "Traceback" not in out.output


def test_no_change_is_claimed_from_a_handful_of_questions() -> None:
    """Five questions improve and none gets worse: a paired t-test says p < 0.05, but five questions
    out of 40 do not show that the change is not noise; the betting test claims nothing."""
    base = ragauge.evaluate_run(GOLDEN, run_with_ranks({q.id: 8 for q in GOLDEN}), k=5)
    ranks = {q.id: 8 for q in GOLDEN}
    ranks.update({f"q{i}": 1 for i in range(5)})
    new = ragauge.evaluate_run(GOLDEN, run_with_ranks(ranks), k=5)
    c = compare(base, new, metrics=["mrr"])
    mrr = c.metrics["mrr"]
    assert (mrr.better, mrr.worse) == (5, 0) and mrr.p_value > 0.05 and mrr.method.startswith("betting")
    assert mrr.verdict == "no evidence of a change" and mrr.ci[0] < 0 < mrr.ci[1]


def test_minimum_detectable_effect_and_tags_too_small(tmp_path: Path) -> None:
    queries = [GoldenQuery(q.id, q.query, q.relevant, ("big",) if i < 30 else ("tiny",)) for i, q in
               enumerate(list(GOLDEN)[:33])]
    golden = GoldenSet.from_queries(queries)
    base = ragauge.evaluate_run(golden, run_with_ranks({q.id: 8 for q in GOLDEN}), k=5)
    new = ragauge.evaluate_run(golden, run_with_ranks({q.id: 1 + int(q.id[1:]) % 9 for q in GOLDEN}), k=5)
    c = compare(base, new)
    assert c.by_tag["tiny"]["mrr"].mde is None and c.by_tag["big"]["mrr"].mde is not None
    assert c.metrics["mrr"].mde is not None and 0 < c.metrics["mrr"].mde < 1
    from ragauge.reports.comparison import render_comparison

    text = render_comparison(c, "text")
    assert "tags too small to detect any change: tiny" in text
    assert "tests: betting" in text and "MDE" in text
    back = Comparison.from_dict(json.loads(render_comparison(c, "json")))
    assert back.metrics["mrr"].mde == c.metrics["mrr"].mde and back.metrics["mrr"].method.startswith("betting")


def test_a_version_1_comparison_still_reads() -> None:
    e = ragauge.evaluate_run(GOLDEN, run_with_ranks({q.id: 3 for q in GOLDEN}), k=5)
    data = compare(e, e).to_dict()
    data["ragauge_comparison"] = 1
    for d in data["metrics"].values():
        del d["method"], d["mde"]
    old = Comparison.from_dict(data)
    assert old.metrics["mrr"].mde is None and "bootstrap" in old.metrics["mrr"].method


def test_the_interval_follows_alpha_so_it_agrees_with_the_verdict() -> None:
    base = ragauge.evaluate_run(GOLDEN, run_with_ranks({q.id: 3 for q in GOLDEN}), k=5)
    ranks = {q.id: 3 for q in GOLDEN}
    ranks.update({f"q{i}": 1 for i in range(10)})
    ranks.update({f"q{i}": 5 for i in range(10, 14)})
    new = ragauge.evaluate_run(GOLDEN, run_with_ranks(ranks), k=5)
    for alpha in (0.05, 0.1, 0.2):
        c = compare(base, new, metrics=["mrr"], alpha=alpha)
        d = c.metrics["mrr"]
        assert c.meta["confidence"] == pytest.approx(1 - alpha)
        assert (d.ci[0] > 0) == (d.p_value < alpha)
    from ragauge.reports.comparison import render_comparison

    assert "80% CI" in render_comparison(compare(base, new, metrics=["mrr"], alpha=0.2), "text")


def test_the_text_report_s_sentences_fit_a_terminal() -> None:
    """compare printed a 262-character line of tests under its table (issue 28)."""
    from ragauge.reports.comparison import PROSE_WIDTH, render_comparison

    e = ragauge.evaluate_run(GOLDEN, run_with_ranks({q.id: 3 for q in GOLDEN}), k=5)
    text = render_comparison(compare(e, e), "text")
    below = text.split("\n\n", 2)[2]  # after the header and the metric table
    assert all(len(line) <= PROSE_WIDTH for line in below.splitlines() if not line.startswith(("hit@", "metric")))
    assert "tests: betting" in text


def test_the_text_report_colours_verdicts_and_fits_a_width_only_when_asked() -> None:
    """Colour and width are options of the terminal report (issue 28): without them the text is as a
    file or pipe gets it; with them the same words, styled and in lines of at most the width."""
    import re

    from ragauge.reports.comparison import render_comparison_text

    base = ragauge.evaluate_run(GOLDEN, run_with_ranks({q.id: 8 for q in GOLDEN}), k=5)
    ranks = {q.id: 1 for q in GOLDEN}
    ranks["q3"] = 10
    c = compare(base, ragauge.evaluate_run(GOLDEN, run_with_ranks(ranks), k=5))
    plain = render_comparison_text(c)
    colored = render_comparison_text(c, color=True, width=60)
    assert "\x1b[" not in plain and "\x1b[32mbetter (significant)" in colored
    fitted = re.sub(r"\x1b\[[0-9;]*m", "", colored)
    assert fitted == render_comparison_text(c, width=60)
    assert max(map(len, fitted.splitlines())) <= 60 < max(map(len, plain.splitlines()))
    assert fitted.split() != plain.split() and sorted(set(plain.split()) - set(fitted.split())) == []


def test_results_at_different_k_say_which_metrics_were_left_out() -> None:
    """Two saved results at k 10 and 5 were compared on mrr alone, the others dropped in silence."""
    golden, run = str(EXAMPLE / "golden.jsonl"), str(EXAMPLE / "bm25.run.jsonl")
    at10, at5 = (ragauge.evaluate_run(golden, run, k=k) for k in (10, 5))
    result = compare(at10, at5)
    assert list(result.metrics) == ["mrr"]
    note = next(n for n in result.notes if "metric(s) both results hold" in n)
    assert "only in base: hit@10, recall@10, ndcg@10" in note and "only in new: hit@5, recall@5, ndcg@5" in note
    assert not any("both results hold" in n for n in compare(at10, at10).notes)
    assert not any("both results hold" in n for n in compare(at10, at5, metrics=["mrr"]).notes)  # asked for


def test_swapping_base_and_new_only_flips_the_signs() -> None:
    """SciFact nDCG@10 read p 0.0979 one way and 0.0850 the other, hit@10's MDE 0.0450 and 0.0434."""
    golden = str(EXAMPLE / "golden.jsonl")
    a, b = (ragauge.evaluate_run(golden, str(EXAMPLE / f"{name}.run.jsonl"), k=10) for name in ("bm25", "bm25-nostem"))
    there, back = compare(a, b), compare(b, a)
    for m, d in there.metrics.items():
        e = back.metrics[m]
        assert (e.diff, *e.ci, e.p_value, e.mde) == pytest.approx((-d.diff, -d.ci[1], -d.ci[0], d.p_value, d.mde),
                                                                  abs=1e-9), m
        assert (e.better, e.worse) == (d.worse, d.better)
