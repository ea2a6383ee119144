"""The gate defends exactly what was reviewed: the baseline's own rules, looser rules refused, and a
hand-edited baseline refused (issue 26)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragauge.cli.main import cli
from ragauge.gating.baseline import digest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scifact"
GOLDEN = str(EXAMPLE / "golden.jsonl")
GOOD = str(EXAMPLE / "bm25.run.jsonl")
WORSE = str(EXAMPLE / "bm25-nostem.run.jsonl")


def invoke(*args: str) -> object:
    return CliRunner().invoke(cli, list(args))


def _baseline(tmp_path: Path, rules: str) -> Path:
    cfg = tmp_path / "rules.toml"
    cfg.write_text("[gate]\n" + rules + "\n")
    path = tmp_path / "eval" / "baseline.json"
    r = invoke("baseline", "update", GOLDEN, "--run", GOOD, "--baseline", str(path), "--config", str(cfg),
               "--reason", "first")
    assert r.exit_code == 0, r.output
    return path


def test_without_config_the_gate_defends_the_rules_the_baseline_recorded(tmp_path: Path) -> None:
    """A baseline recorded with critical questions and a strict allowance: before, a gate without
    --config checked the 4 default rules only and passed."""
    path = _baseline(tmp_path, 'metrics = { "ndcg@10" = 0.01 }\ncritical = ["3", "1241"]\ncritical_k = 10')
    r = invoke("gate", GOLDEN, "--run", WORSE, "--baseline", str(path))
    assert r.exit_code == 1, r.output
    assert "ndcg@10 may drop at most 0.0100" in r.stdout and "critical question '1241'" in r.stdout
    assert "hit@5" not in r.stdout  # not the defaults
    assert "gate failed: 2 rule(s) broken (ndcg@10 may drop at most 0.0100 below the baseline; critical" in r.stderr


def test_the_bundled_example_gates_without_config() -> None:
    r = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(EXAMPLE / "baseline.json"))
    assert r.exit_code == 0, r.output
    assert "all 7 rule(s) hold" in r.stdout and "- : hint" not in r.stdout


def test_looser_rules_fail_the_gate_and_a_baseline_update_needs_accept_drop(tmp_path: Path) -> None:
    path = _baseline(tmp_path, 'metrics = { "ndcg@10" = 0.01, "mrr" = 0.01 }\ncritical = ["3"]')
    loose = tmp_path / "loose.toml"
    loose.write_text('[gate]\nmetrics = { "ndcg@10" = 0.05, "mrr" = 0.01 }\n')
    r = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(path), "--config", str(loose))
    assert r.exit_code == 1, r.output
    assert "looser than the ones recorded in the baseline" in r.stdout
    assert "ndcg@10 may drop 0.0500 (was 0.0100)" in r.stdout and "critical question '3' removed" in r.stdout
    refused = invoke("baseline", "update", GOLDEN, "--run", GOOD, "--baseline", str(path), "--config", str(loose),
                     "--reason", "looser")
    assert refused.exit_code == 2 and "looser than the baseline's" in refused.stderr
    ok = invoke("baseline", "update", GOLDEN, "--run", GOOD, "--baseline", str(path), "--config", str(loose),
                "--reason", "looser", "--accept-drop")
    assert ok.exit_code == 0, ok.output
    record = json.loads(path.read_text())
    assert "critical question '3' removed" in record["accepted_rule_changes"]
    assert invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(path)).exit_code == 0
    stricter = tmp_path / "strict.toml"
    stricter.write_text('[gate]\nmetrics = { "ndcg@10" = 0.01, "mrr" = 0.01 }\n')
    r = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(path), "--config", str(stricter))
    assert r.exit_code == 0 and "stricter than) the ones recorded" in r.stdout


def test_a_hand_edited_baseline_is_refused(tmp_path: Path) -> None:
    """Lowering the stored means by 0.2 let a clearly worse run pass every rule."""
    path = _baseline(tmp_path, 'metrics = { "ndcg@10" = 0.02 }')
    record = json.loads(path.read_text())
    edited = dict(record, metrics={m: v - 0.2 for m, v in record["metrics"].items()})
    path.write_text(json.dumps(edited))
    r = invoke("gate", GOLDEN, "--run", WORSE, "--baseline", str(path))
    assert r.exit_code == 2 and "does not follow from its per-question values" in r.stderr
    assert "Traceback" not in r.output
    # per-question values lowered too, means kept consistent: the digest and the history disagree
    rows = {q: {**v, "ndcg@10": 0.0} for q, v in record["queries"].items()}
    path.write_text(json.dumps(dict(record, queries=rows, metrics={"ndcg@10": 0.0})))
    r = invoke("gate", GOLDEN, "--run", WORSE, "--baseline", str(path))
    assert r.exit_code == 2 and "digest does not match" in r.stderr
    del_digest = {k: v for k, v in record.items() if k != "digest"}
    path.write_text(json.dumps(dict(del_digest, queries=rows, metrics={"ndcg@10": 0.0})))
    r = invoke("gate", GOLDEN, "--run", WORSE, "--baseline", str(path))  # passed before: nothing left to check
    assert r.exit_code == 2 and "the baseline has no digest" in r.stderr, r.output
    lowered = dict(del_digest, queries=rows, metrics={"ndcg@10": 0.0})
    path.write_text(json.dumps(dict(lowered, digest=digest(lowered))))  # the digest recomputed too
    r = invoke("gate", GOLDEN, "--run", WORSE, "--baseline", str(path))
    assert r.exit_code == 2 and "differs from the last entry of its history" in r.stderr
    history = path.with_name("baseline.history.jsonl")
    kept = history.read_text()
    history.unlink()  # ... and the history that would show it left behind: passed before
    r = invoke("gate", GOLDEN, "--run", WORSE, "--baseline", str(path))
    assert r.exit_code == 2 and "history (baseline.history.jsonl) is missing" in r.stderr, r.output
    history.write_text("")
    r = invoke("gate", GOLDEN, "--run", WORSE, "--baseline", str(path))
    assert r.exit_code == 2 and "history (baseline.history.jsonl) is empty" in r.stderr, r.output
    history.write_text(kept)
    path.write_text(json.dumps(record))  # restored: the gate runs again
    assert invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(path)).exit_code == 0


def test_questions_behind_a_rule_say_how_many_more() -> None:
    from ragauge.reports.gate import question_line

    assert question_line({"more": 29}) == "+29 more"
    assert question_line({"hint": "re-baseline"}) == "hint: re-baseline"
    assert question_line({"id": "q1", "now": 0.5}) == "q1: now=0.5000"


def test_a_corpus_that_changes_the_labels_is_part_of_the_contract(tmp_path: Path) -> None:
    """--corpus changed the numbers (stale labels dropped) but not the recorded contract, so a result
    with it and one without compared as equals; now the effective labels are in the contract."""
    import gzip

    import ragauge

    docs = [json.loads(line) for line in gzip.open(EXAMPLE / "corpus.jsonl.gz", "rt")]
    partial = tmp_path / "corpus.jsonl"
    partial.write_text("".join(json.dumps(d) + "\n" for d in docs[:4000]))
    plain = ragauge.evaluate_run(GOLDEN, GOOD)
    checked = ragauge.evaluate_run(GOLDEN, GOOD, corpus=partial)
    assert "labels" not in plain.meta["contract"] and checked.meta["contract"]["labels"].startswith("effective ")
    assert plain.summary["recall@5"] != checked.summary["recall@5"]
    full = ragauge.evaluate_run(GOLDEN, GOOD, corpus=EXAMPLE / "corpus.jsonl.gz")  # nothing stale: as given
    assert full.meta["contract"] == plain.meta["contract"] and full.summary == plain.summary
    path = tmp_path / "baseline.json"
    r = invoke("baseline", "update", GOLDEN, "--run", GOOD, "--baseline", str(path), "--corpus", str(partial),
               "--reason", "first")
    assert r.exit_code == 0, r.output
    without = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(path))
    assert without.exit_code == 1 and "labels differ from the baseline's" in without.stdout
    assert invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(path), "--corpus", str(partial)).exit_code == 0
    compared = CliRunner().invoke(cli, ["compare", GOOD, GOOD, "--golden", GOLDEN])
    assert compared.exit_code == 0


def test_a_retriever_is_gated_on_the_labels_evaluate_scores_it_with(tmp_path: Path) -> None:
    """With a built-in retriever, eval dropped a label whose document left the index (a stale label)
    while the gate scored it as a miss: eval said hit@5 1.0 over 1 question, the gate 0.5 over 2 and
    passed. Both now read the retriever's own index, and a label leaving it changes the contract."""
    import ragauge

    docs = tmp_path / "docs"
    (docs / "net").mkdir(parents=True)
    (docs / "net" / "vpn.md").write_text("To rotate the VPN gateway certificate, renew it in the admin console.")
    (docs / "printer.md").write_text("Printer error E-301 means a paper jam in tray 2.")
    (docs / "holiday.md").write_text("Holiday policy for staff.")
    golden = tmp_path / "golden.jsonl"
    golden.write_text('{"id": "q1", "query": "rotate the VPN gateway certificate", "relevant": ["net/vpn.md"]}\n'
                      '{"id": "q2", "query": "printer error E-301", "relevant": ["printer.md"]}\n')
    spec, path = f"bm25:{docs}", tmp_path / "baseline.json"
    ragauge.update_baseline(golden, baseline=path, retriever=spec, reason="first")
    assert ragauge.gate(golden, baseline=path, retriever=spec).passed
    (docs / "net" / "vpn.md").unlink()
    evaluated = ragauge.evaluate(golden, spec, metrics=["hit@5"])
    assert evaluated.meta["contract"]["labels"].startswith("effective ")
    result = ragauge.gate(golden, baseline=path, retriever=spec)
    assert not result.passed and [o.kind for o in result.outcomes] == ["contract"]
    assert "labels differ from the baseline's" in result.outcomes[0].message


def test_the_gate_names_where_its_rules_came_from(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --config the gate reads a ragauge.toml it finds in the working directory, and its
    output never said so: a failure came from rules the user had not named."""
    path = _baseline(tmp_path, 'metrics = { "ndcg@10" = 0.02 }')
    r = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(path))
    assert r.exit_code == 0 and "rules recorded in the baseline" in r.stdout.splitlines()[1], r.output
    work = tmp_path / "work"
    work.mkdir()
    (work / "ragauge.toml").write_text('[gate]\nmetrics = { "ndcg@10" = 0.01 }\n')
    monkeypatch.chdir(work)
    r = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(path))
    assert r.exit_code == 0 and r.stdout.splitlines()[1] == f"  rules: {work / 'ragauge.toml'}", r.output
    r = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(path), "--format", "markdown")
    from ragauge.core.escape import markdown

    assert f"<sub>rules: {markdown(str(work / 'ragauge.toml'))}</sub>" in r.stdout
