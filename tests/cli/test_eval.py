from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragauge.cli.main import cli

MINI = Path(__file__).parents[1] / "fixtures" / "mini"


def invoke(*args: str) -> object:
    return CliRunner().invoke(cli, list(args))


def test_text_report_has_summary_contract_tags_worst_and_warnings() -> None:
    result = invoke("eval", str(MINI / "golden.jsonl"), "--run", str(MINI / "run.jsonl"), "-k", "1,3",
                    "--doc-id-sep", "#")
    assert result.exit_code == 0, result.output
    out = result.stdout
    for needle in ["hit@1", "ndcg@3", "contract: k=1,3", "means over 3 answerable of 4 questions",
                   "by tag (weakest first)", "worst 3 questions", "no-answer questions: 1",
                   "missing from the run, scored as finding nothing: q4", "duplicate hit(s) folded", "fetch deeper: q1",
                   "returned: a, +kb-9, +printer"]:
        assert needle in out, needle


def test_json_report_shape(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    result = invoke("eval", str(MINI / "golden.jsonl"), "--run", str(MINI / "run.jsonl"), "--metrics",
                    "hit@1,mrr,ndcg@3", "--doc-id-sep", "#", "--format", "json", "-o", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert list(data["summary"]) == ["hit@1", "mrr", "ndcg@3"]
    assert data["summary"]["mrr"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert {q["id"] for q in data["queries"]} == {"q1", "q2", "q4"}
    assert data["no_answer"]["n"] == 1 and data["no_answer"]["questions"][0]["id"] == "q3"
    assert data["meta"]["golden"]["hash"].startswith("sha256:")
    assert data["meta"]["run"]["hash"].startswith("sha256:")
    assert data["meta"]["contract"]["metrics"] == ["hit@1", "mrr", "ndcg@3"]
    assert set(data["by_tag"]) == {"net", "hw"}


def test_fetch_cuts_raw_hits_before_dedup() -> None:
    result = invoke("eval", str(MINI / "golden.jsonl"), "--run", str(MINI / "run.jsonl"), "--metrics", "recall@3",
                    "--fetch", "2", "--doc-id-sep", "#", "--format", "json")
    data = json.loads(result.stdout)
    q1 = next(q for q in data["queries"] if q["id"] == "q1")
    assert q1["recall@3"] == 0.5  # kb-1#2, kb-1#3 are the first two raw hits: one document


def test_doc_id_pattern() -> None:
    result = invoke("eval", str(MINI / "golden.jsonl"), "--run", str(MINI / "run.jsonl"), "--metrics", "recall@3",
                    "--doc-id-pattern", r"^(.+)#\d+$", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["recall@3"] == pytest.approx(2 / 3)


@pytest.mark.parametrize(("args", "message"), [
    (["--metrics", "ndgc@10"], "did you mean ndcg"),
    (["-k", "0"], "-k takes integers from 1 to"),
    ([], "have chunk ids but no doc_id"),
    (["--doc-id-pattern", "("], "invalid --doc-id-pattern"),
    (["--doc-id-sep", "#", "--fetch", "0"], "--fetch (hits kept per question) must be an integer >= 1"),
])
def test_bad_input_exits_2_with_one_message(args: list[str], message: str) -> None:
    result = invoke("eval", str(MINI / "golden.jsonl"), "--run", str(MINI / "run.jsonl"), *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_debug_shows_the_exception(tmp_path: Path) -> None:
    result = invoke("--debug", "eval", str(MINI / "golden.jsonl"), "--run", str(tmp_path / "missing.jsonl"))
    assert result.exit_code == 1 and result.exception is not None


def test_golden_error_names_line(tmp_path: Path) -> None:
    bad = tmp_path / "g.jsonl"
    bad.write_text('{"id": "a", "query": "x", "relevant": []}\n{"id": "a", "query": "y", "relevant": []}\n')
    result = invoke("eval", str(bad), "--run", str(MINI / "run.jsonl"))
    assert result.exit_code == 2
    assert f"{bad}:2: duplicate question id 'a' (first seen on line 1)" in result.stderr


def test_every_command_has_help_with_an_example() -> None:
    def walk(group: object, prefix: list[str]) -> list[list[str]]:
        out = []
        for name, cmd in getattr(group, "commands", {}).items():
            out.append(prefix + [name])
            out += walk(cmd, prefix + [name])
        return out

    for path in walk(cli, []):
        result = invoke(*path, "--help")
        assert result.exit_code == 0
        assert "Example" in result.output, path


def test_judged_at_k_the_unjudged_rule_and_where_reports_show_them(tmp_path: Path) -> None:
    # q1 (chunks folded): kb-1, vpn -> both labelled, 2/2; q2: a, kb-9, printer -> 2/3; q4 missing -> 0
    args = ["eval", str(MINI / "golden.jsonl"), "--run", str(MINI / "run.jsonl"), "--doc-id-sep", "#"]
    result = invoke(*args, "--metrics", "judged@3,hit@1", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [q["judged@3"] for q in data["queries"]] == [1.0, pytest.approx(2 / 3), 0.0]
    assert data["summary"]["judged@3"] == pytest.approx(5 / 9)
    assert data["meta"]["judged"] == {"k": 3, "mean": pytest.approx(5 / 9)}
    assert data["meta"]["contract"]["unjudged"] == "non-relevant"
    text = invoke(*args, "-k", "3").stdout  # not asked for: the context line still says it
    assert "unjudged: non-relevant; judged@3=0.5556: mean share of the top 3 that the golden set labels" in text
    result = invoke(*args, "-k", "3", "--unjudged", "unknown", "--format", "html")
    assert result.exit_code == 0, result.output
    assert "<dt>unjudged documents</dt><dd>unknown (left out of each ranking before scoring); judged@3=0.5556" \
        in result.stdout
    assert "condensed lists" in invoke(*args, "--unjudged", "unknown", "--format", "markdown").stdout
    bad = invoke(*args, "--unjudged", "skip")
    assert bad.exit_code == 2 and "'skip' is not one of 'non-relevant', 'unknown'" in bad.output


def test_the_unjudged_choices_are_the_engines() -> None:
    import click

    from ragauge.cli.options import unjudged_option
    from ragauge.metrics.judged import UNJUDGED

    command = unjudged_option()(click.command()(lambda unjudged: None))
    assert tuple(command.params[0].type.choices) == UNJUDGED  # type: ignore[attr-defined]


def test_metrics_command_lists_judged() -> None:
    out = invoke("metrics").stdout
    assert "judged  |  judged@k    (trec_eval: none (ir_measures Judged@k))" in out
    assert "|judged ∩ top k| / min(k, n)" in out


def test_a_built_in_retriever_lends_its_corpus_to_the_failure_patterns(tmp_path: Path) -> None:
    """The Quick start's own output said "no corpus texts (give --corpus PATH)" after being given
    the corpus in --retriever bm25:PATH."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"_id": f"d{i}", "title": "", "text": text}) + "\n"
                              for i, text in enumerate(["reset the vpn certificate", "printer paper jam",
                                                        "rotate keys for the gateway"])))
    golden = tmp_path / "g.jsonl"
    golden.write_text(json.dumps({"id": "q1", "query": "certificate rotation on the gateway",
                                  "relevant": ["d1"]}) + "\n")  # a miss: its patterns are assessed
    r = CliRunner().invoke(cli, ["eval", str(golden), "--retriever", f"bm25:{corpus}", "-k", "1"])
    assert r.exit_code == 0, r.output
    assert "why it failed" in r.stdout and "no corpus texts" not in r.stdout and "vocabulary gap" in r.stdout
