from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.errors import InputError
from ragauge.gating.config import load_rules

EXAMPLE = Path(__file__).parents[2] / "examples" / "scifact"
GOLDEN = str(EXAMPLE / "golden.jsonl")
GOOD = str(EXAMPLE / "bm25.run.jsonl")
WORSE = str(EXAMPLE / "bm25-nostem.run.jsonl")


def invoke(*args: str) -> object:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def baseline(tmp_path: Path) -> Path:
    path = tmp_path / "eval" / "baseline.json"
    r = invoke("baseline", "update", GOLDEN, "--run", GOOD, "--baseline", str(path), "--config",
               str(EXAMPLE / "ragauge.toml"), "--reason", "first")
    assert r.exit_code == 0, r.output
    return path


def test_committed_example_baseline_holds() -> None:
    r = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(EXAMPLE / "baseline.json"),
               "--config", str(EXAMPLE / "ragauge.toml"))
    assert r.exit_code == 0, r.output
    assert "all 7 rule(s) hold" in r.stdout


def test_gate_fails_on_a_real_drop_and_names_rules_numbers_and_questions(baseline: Path) -> None:
    r = invoke("gate", GOLDEN, "--run", WORSE, "--baseline", str(baseline), "--config", str(EXAMPLE / "ragauge.toml"))
    assert r.exit_code == 1
    assert "[FAIL] ndcg@10 may drop at most 0.0200" in r.stdout
    assert "ndcg@10: baseline 0.6860, now 0.6617 (-0.0243)" in r.stdout
    assert "- 1241: baseline=1.0000, now=0.0000" in r.stdout
    assert "[pass] mrr may drop at most 0.0200" in r.stdout
    assert "gate failed" in r.stderr


def test_gate_formats(baseline: Path, tmp_path: Path) -> None:
    args = ["gate", GOLDEN, "--run", WORSE, "--baseline", str(baseline), "--config", str(EXAMPLE / "ragauge.toml")]
    data = json.loads(invoke(*args, "--format", "json").stdout)
    assert data["passed"] is False and {o["kind"] for o in data["outcomes"] if not o["passed"]} == {"metric"}
    md = invoke(*args, "--format", "markdown").stdout
    assert md.startswith("### ❌ ragauge gate failed") and "<details>" in md
    suite = ET.fromstring(invoke(*args, "--format", "junit").stdout.split("?>", 1)[1])
    assert suite.get("tests") == "7" and suite.get("failures") == "3"
    assert "1241" in "".join(f.text or "" for f in suite.iter("failure"))


def test_significant_only_passes_a_drop_that_is_noise(baseline: Path, tmp_path: Path) -> None:
    r = _gate_with(baseline, tmp_path, 'metrics = { "mrr" = 0.0 }\nsignificant_only = true')
    assert r.exit_code == 0, r.output
    assert "not significant, so it passes" in r.stdout
    assert _gate_with(baseline, tmp_path, 'metrics = { "mrr" = 0.0 }').exit_code == 1


def test_tag_floors_and_critical_questions(tmp_path: Path) -> None:
    golden = tmp_path / "g.jsonl"
    golden.write_text('{"id": "a", "query": "x", "relevant": ["d1"], "tags": ["net"]}\n'
                      '{"id": "b", "query": "y", "relevant": ["d2"], "tags": ["net"]}\n')
    run = tmp_path / "r.jsonl"
    run.write_text('{"id": "a", "hits": ["d1"]}\n{"id": "b", "hits": ["z", "z2", "d2"]}\n')
    cfg = tmp_path / "ragauge.toml"
    cfg.write_text('[gate]\nmetrics = { "hit@1" = 0.0 }\ntag_floors = { net = { "hit@1" = 0.9 } }\n'
                   'critical = ["b", "nope"]\ncritical_k = 2\n')
    base = tmp_path / "baseline.json"
    assert invoke("baseline", "update", str(golden), "--run", str(run), "--baseline", str(base), "--config", str(cfg),
                  "--reason", "r").exit_code == 0
    r = invoke("gate", str(golden), "--run", str(run), "--baseline", str(base), "--config", str(cfg))
    assert r.exit_code == 1
    assert "[FAIL] tag 'net': hit@1 must stay >= 0.9000" in r.stdout and "hit@1 = 0.5000" in r.stdout
    assert "[FAIL] critical question 'b' keeps a relevant document in the top 2" in r.stdout
    assert "'nope' is not an answerable question" in r.stdout


def test_the_gate_reads_the_columns_not_the_rows(baseline: Path, rows_made: list[int], tmp_path: Path) -> None:
    """A fresh evaluation makes a row each time it is read: each of the four metric rules read
    every row (1,552 rows made in all for SciFact's 300 answerable questions). The rules and the
    tag floors read the columns: only the misses' rows are made (their failures are classified)
    and the critical questions', one each."""
    r = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(baseline), "--config", str(EXAMPLE / "ragauge.toml"))
    assert r.exit_code == 0, r.output
    assert sum(rows_made) < 300 and rows_made.count(1) == 3  # 3 critical questions
    rules = tmp_path / "floors.toml"
    rules.write_text('[gate]\nmetrics = { "hit@10" = 0.02 }\ntag_floors = { nope = { "hit@10" = 0.5 } }\n')
    r = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(baseline), "--config", str(rules))
    assert "no answerable question has tag 'nope'" in r.stdout


def test_the_baselines_questions_are_copied_once(baseline: Path) -> None:
    """Baseline.queries copied every stored question on each read, and the gate's rules read it
    twice per question: quadratic (6,980 questions took 5.6 s to gate, 2.5 s now). It is copied
    once, and stays a plain dict (JSON, pickling)."""
    from ragauge.gating.baseline import read_baseline

    b = read_baseline(baseline)
    assert b.queries is b.queries and b.queries == b.data["queries"] and len(b.queries) == 300
    assert b.queries is not b.data["queries"] and json.loads(json.dumps(b.queries)) == b.data["queries"]


def test_changed_golden_set_fails_with_a_clear_message(baseline: Path, tmp_path: Path) -> None:
    golden = tmp_path / "golden.jsonl"
    shutil.copy(GOLDEN, golden)
    with open(golden, "a") as fh:
        fh.write('{"id": "new-q", "query": "added", "relevant": ["31715818"]}\n')
    r = invoke("gate", str(golden), "--run", GOOD, "--baseline", str(baseline), "--config",
               str(EXAMPLE / "ragauge.toml"))
    assert r.exit_code == 1
    assert "the golden set changed since the baseline" in r.stdout and "re-baseline explicitly" in r.stdout


def test_baseline_update_needs_a_reason_refuses_drops_and_keeps_history(baseline: Path) -> None:
    common = [GOLDEN, "--baseline", str(baseline), "--config", str(EXAMPLE / "ragauge.toml")]
    r = invoke("baseline", "update", GOLDEN, "--run", GOOD, *common[1:])
    assert r.exit_code == 2 and "needs a reason" in r.stderr
    before = baseline.read_text()
    r = invoke("baseline", "update", "--run", WORSE, *common, "--reason", "tokenizer change")
    assert r.exit_code == 2 and "refused: the new baseline is worse" in r.stderr and "--accept-drop" in r.stderr
    assert "ndcg@10 fell 0.6860 -> 0.6617" in r.stderr
    assert baseline.read_text() == before
    r = invoke("baseline", "update", "--run", WORSE, *common, "--reason", "tokenizer change", "--accept-drop")
    assert r.exit_code == 0, r.output
    record = json.loads(baseline.read_text())
    assert record["reason"] == "tokenizer change"
    assert record["accepted_drops"]["ndcg@10"]["from"] == pytest.approx(0.685973, abs=1e-6)
    assert record["rules"]["critical_k"] == 10 and record["golden_hash"].startswith("sha256:")
    history = [json.loads(line) for line in (baseline.parent / "baseline.history.jsonl").read_text().splitlines()]
    assert [h["reason"] for h in history] == ["first", "tokenizer change"]
    assert history[1]["accepted_drops"]


def test_a_count_that_rose_is_refused_as_worse_not_lower(tmp_path: Path) -> None:
    """calls_to_evidence 1.0833 -> 2.0833 (each agent run starts with a call that finds nothing): lower is
    better for a count, so the refusal says worse, and rose; it said "the new baseline is lower"."""
    multihop = EXAMPLE.parent / "multihop"
    golden, rules = str(multihop / "golden.jsonl"), tmp_path / "rules.toml"
    rules.write_text('[gate]\nmetrics = { "evidence_recall@10" = 0.02, "calls_to_evidence" = 0.5 }\n')
    lines = [json.loads(line) for line in (multihop / "agent.run.jsonl").read_text().splitlines() if line.strip()]
    for line in lines:
        line.get("calls", []).insert(0, {"query": "noise", "hits": ["topic/founders"], "tool": "search"})
    worse = tmp_path / "worse.run.jsonl"
    worse.write_text("".join(json.dumps(line) + "\n" for line in lines))
    common = ["--baseline", str(tmp_path / "b.json"), "--config", str(rules)]
    r = invoke("baseline", "update", golden, "--run", str(multihop / "agent.run.jsonl"), *common, "--reason", "agent")
    assert r.exit_code == 0, r.output
    r = invoke("baseline", "update", golden, "--run", str(worse), *common, "--reason", "a call first")
    assert r.exit_code == 2, r.output
    assert "refused: the new baseline is worse than the current one (calls_to_evidence rose 1.0833 -> 2.0833)" \
        in r.stderr


def test_rules_defaults_and_validation(tmp_path: Path) -> None:
    assert load_rules(None).metrics == {"hit@5": 0.02, "recall@5": 0.02, "mrr": 0.02, "ndcg@5": 0.02}
    py = tmp_path / "pyproject.toml"
    py.write_text('[tool.ragauge.gate]\nmetrics = ["ndcg@10"]\n')
    assert load_rules(py).metrics == {"ndcg@10": 0.02}
    bad = tmp_path / "ragauge.toml"
    bad.write_text('[gate]\nmetrics = { "ndgc@10" = 0.02 }\n')
    with pytest.raises(InputError, match="did you mean ndcg"):
        load_rules(bad)
    bad.write_text('[gate]\nthreshold = 1\n')
    with pytest.raises(InputError, match="unknown gate setting"):
        load_rules(bad)


def test_pytest_helper(baseline: Path) -> None:
    from ragauge.testing import assert_no_regression

    cfg = EXAMPLE / "ragauge.toml"
    assert assert_no_regression(GOLDEN, GOOD, baseline=baseline, rules=cfg).passed
    with pytest.raises(AssertionError, match="ndcg@10: baseline 0.6860, now 0.6617"):
        assert_no_regression(GOLDEN, WORSE, baseline=baseline, rules=cfg)
    assert assert_no_regression(GOLDEN, GOOD, baseline=baseline, rules=load_rules(cfg)).passed


def test_the_pytest_helper_s_former_config_name_still_works_with_a_warning(baseline: Path) -> None:
    from ragauge.testing import assert_no_regression

    cfg = EXAMPLE / "ragauge.toml"
    with pytest.warns(DeprecationWarning, match="now rules="):
        assert assert_no_regression(GOLDEN, GOOD, baseline=baseline, config=cfg).passed
    with pytest.raises(TypeError, match="not both"):
        assert_no_regression(GOLDEN, GOOD, baseline=baseline, config=cfg, rules=cfg)


def test_gate_and_baseline_can_call_the_retriever(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    spec = f"bm25:{EXAMPLE / 'corpus.jsonl.gz'}"
    base = tmp_path / "baseline.json"
    cfg = str(EXAMPLE / "ragauge.toml")
    r = invoke("baseline", "update", GOLDEN, "--retriever", spec, "--fetch", "100", "--baseline", str(base),
               "--config", cfg, "--reason", "live bm25")
    assert r.exit_code == 0, r.output
    assert json.loads(base.read_text())["metrics"]["ndcg@10"] == pytest.approx(0.6863, abs=1e-4)
    r = invoke("gate", GOLDEN, "--retriever", spec, "--fetch", "100", "--baseline", str(base), "--config", cfg)
    assert r.exit_code == 0, r.output
    r = invoke("gate", GOLDEN, "--baseline", str(base), "--config", cfg)
    assert r.exit_code == 2 and "--run FILE or --retriever SPEC" in r.stderr


def _gate_with(baseline: Path, tmp_path: Path, rules: str, run: str = WORSE) -> object:
    """Gate ``run`` under ``rules``, recorded in the baseline first (rules looser than the recorded
    ones would fail the gate on their own)."""
    cfg = tmp_path / "rules.toml"
    cfg.write_text("[gate]\n" + rules + "\n")
    recorded = invoke("baseline", "update", GOLDEN, "--run", GOOD, "--baseline", str(baseline), "--config", str(cfg),
                      "--reason", "these rules", "--accept-drop")
    if recorded.exit_code != 0:  # rules the baseline cannot hold (the tests of bad rules): gate against it as is
        return invoke("gate", GOLDEN, "--run", run, "--baseline", str(baseline), "--config", str(cfg))
    return invoke("gate", GOLDEN, "--run", run, "--baseline", str(baseline), "--config", str(cfg))


@pytest.mark.parametrize(("rules", "code", "says"), [
    # the unstemmed run: mrr -0.0172, ndcg@10 -0.0243 (betting: one-sided lower bound -0.055)
    ('metrics = { "mrr" = 0.0 }\nfail_if = "significant"', 0, "no significant drop"),
    ('metrics = { "ndcg@10" = 0.0 }\nfail_if = "significant"', 1, "a significant drop"),
    ('metrics = { "ndcg@10" = 0.03 }\nfail_if = "drop_and_significant"', 0, "within the allowance"),
    ('metrics = { "ndcg@10" = 0.02 }\nfail_if = "drop_and_significant"', 1, "significant drop beyond the allowance"),
    ('metrics = { "ndcg@10" = 0.06 }\nfail_if = "not_shown_no_worse"', 0, "shown no worse than the margin"),
    ('metrics = { "ndcg@10" = 0.03 }\nfail_if = "not_shown_no_worse"', 1, "not shown to be no worse than the margin"),
])
def test_fail_if_modes(baseline: Path, tmp_path: Path, rules: str, code: int, says: str) -> None:
    r = _gate_with(baseline, tmp_path, rules)
    assert r.exit_code == code, r.output
    assert says in r.stdout and "betting test, n = 300" in r.stdout


def test_the_gate_says_when_the_golden_set_is_too_small_for_its_rule(baseline: Path, tmp_path: Path) -> None:
    r = _gate_with(baseline, tmp_path, 'metrics = { "hit@10" = 0.02 }', run=GOOD)
    assert r.exit_code == 0, r.output
    assert "NOTE: hit@10: with 300 questions a change of equal quality drops it by more than 0.0200 in 16% of runs" \
        in r.stdout and "so this rule fails on noise" in r.stdout
    assert "smallest change the 300 questions detect (80% power): hit@10 ±0.0" in r.stdout
    data = json.loads(invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(baseline), "--config",
                             str(tmp_path / "rules.toml"), "--format", "json").stdout)
    power = data["meta"]["power"][0]
    assert power["n"] == 300 and power["false_alarm"] == pytest.approx(0.16, abs=0.02) and power["mde"] > 0.05
    strict = _gate_with(baseline, tmp_path, 'metrics = { "hit@10" = 0.02 }\nstrict_power = true', run=GOOD)
    assert strict.exit_code == 2 and "too small for the gate's rules" in strict.stderr
    assert "Traceback" not in strict.output
    # an allowance the set can resolve, or runs assumed to agree closely, say nothing
    assert "NOTE" not in _gate_with(baseline, tmp_path, 'metrics = { "hit@10" = 0.04 }', run=GOOD).stdout
    quiet = _gate_with(baseline, tmp_path, 'metrics = { "hit@10" = 0.02 }\ncorrelation = 0.9', run=GOOD)
    assert "NOTE" not in quiet.stdout


@pytest.mark.parametrize(("rules", "error"), [
    ('fail_if = "sometimes"', "'gate.fail_if' must be one of drop, significant"),
    ('fail_if = "drop"\nsignificant_only = true', "both given"),
    ("correlation = 1.0", "'gate.correlation'"),
    ('strict_power = "yes"', "must be true or false"),
    ('fail_if = ["drop"]', "'gate.fail_if' must be one of"),
])
def test_bad_statistics_settings_are_exit_2(baseline: Path, tmp_path: Path, rules: str, error: str) -> None:
    r = _gate_with(baseline, tmp_path, rules)
    assert r.exit_code == 2 and error in r.stderr and "rules.toml" in r.stderr, r.output


def test_the_unjudged_rule_is_part_of_the_baselines_contract(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    config = ["--config", str(EXAMPLE / "ragauge.toml")]
    r = invoke("baseline", "update", GOLDEN, "--run", GOOD, "--baseline", str(path), *config, "--reason", "condensed",
               "--unjudged", "unknown")
    assert r.exit_code == 0, r.output
    assert json.loads(path.read_text())["contract"]["unjudged"] == "unknown"
    r = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(path), *config)
    assert r.exit_code == 1 and "unjudged differ from the baseline's" in r.stdout
    r = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(path), *config, "--unjudged", "unknown")
    assert r.exit_code == 0, r.output
    from ragauge.testing import assert_no_regression

    with pytest.raises(AssertionError, match="unjudged differ"):
        assert_no_regression(GOLDEN, GOOD, baseline=path, rules=EXAMPLE / "ragauge.toml")
    assert assert_no_regression(GOLDEN, GOOD, baseline=path, rules=EXAMPLE / "ragauge.toml", unjudged="unknown").passed
    # a baseline that predates the rule (no 'unjudged' in its contract) reads as non-relevant
    from ragauge.gating.baseline import digest

    older = json.loads((EXAMPLE / "baseline.json").read_text())
    del older["contract"]["unjudged"], older["digest"]
    older["digest"] = digest(older)
    path.write_text(json.dumps(older))
    path.with_name("baseline.history.jsonl").write_text(
        json.dumps({k: older[k] for k in ("created", "metrics", "digest")}) + "\n")
    r = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(path), *config)
    assert r.exit_code == 0, r.output


def _small_case(tmp_path: Path, questions: int, rank: int = 1, rules: str = "") -> tuple[Path, Path, Path]:
    """``questions`` questions found at ``rank`` in the baseline's run and not at all in the new one;
    the baseline records ``rules`` (a [gate] table's body; the defaults when empty)."""
    golden = tmp_path / "small.jsonl"
    golden.write_text("".join(f'{{"id": "q{i}", "query": "x", "relevant": ["d{i}"]}}\n' for i in range(questions)))
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    filler = '"y", ' * (rank - 1)
    good.write_text("".join(f'{{"id": "q{i}", "hits": [{filler}"d{i}"]}}\n' for i in range(questions)))
    bad.write_text("".join(f'{{"id": "q{i}", "hits": ["x{i}"]}}\n' for i in range(questions)))
    base = tmp_path / "small-baseline.json"
    cfg = tmp_path / "small-rules.toml"
    cfg.write_text("[gate]\n" + rules + "\n" if rules else "")
    assert invoke("baseline", "update", str(golden), "--run", str(good), "--baseline", str(base), "--config", str(cfg),
                  "--reason", "r", "--accept-drop").exit_code == 0
    return golden, bad, base


@pytest.mark.parametrize("fail_if", ["significant", "drop_and_significant"])
def test_a_tested_rule_on_too_few_questions_says_it_cannot_fail(tmp_path: Path, fail_if: str) -> None:
    rules = f'metrics = {{ "hit@5" = 0.02 }}\nfail_if = "{fail_if}"'
    golden, bad, base = _small_case(tmp_path, 5, rules=rules)  # all 5 drop 1 -> 0: the betting test's p 0.061
    cfg = tmp_path / "rules.toml"
    cfg.write_text(f'[gate]\n{rules}\n')
    r = invoke("gate", str(golden), "--run", str(bad), "--baseline", str(base), "--config", str(cfg))
    assert r.exit_code == 0, r.output
    assert "not significant" in r.stdout or "no significant drop" in r.stdout
    assert "NOTE: hit@5: with 5 questions the test cannot tell any change from noise, so this rule can never fail" \
        in r.stdout
    cfg.write_text(f'[gate]\nmetrics = {{ "hit@5" = 0.02 }}\nfail_if = "{fail_if}"\nstrict_power = true\n')
    strict = invoke("gate", str(golden), "--run", str(bad), "--baseline", str(base), "--config", str(cfg))
    assert strict.exit_code == 2 and "too small for the gate's rules" in strict.stderr


def test_an_unchanged_small_set_is_not_shown_no_worse(tmp_path: Path) -> None:
    """Graded values (mrr 0.5) that do not change: 8 unchanged questions do not show that nothing
    changes (the betting bound spans what the questions not asked could do); 300 do, for 0.02."""
    rules = 'metrics = { "mrr" = 0.02 }\nfail_if = "not_shown_no_worse"'
    golden, _, base = _small_case(tmp_path, 8, rank=2, rules=rules)
    good = tmp_path / "good.jsonl"
    cfg = tmp_path / "rules.toml"
    cfg.write_text(f"[gate]\n{rules}\n")
    r = invoke("gate", str(golden), "--run", str(good), "--baseline", str(base), "--config", str(cfg))
    assert r.exit_code == 1 and "not shown to be no worse" in r.stdout, r.output
    golden, _, base = _small_case(tmp_path, 300, rank=2, rules=rules)
    r = invoke("gate", str(golden), "--run", str(good), "--baseline", str(base), "--config", str(cfg))
    assert r.exit_code == 0 and "shown no worse than the margin" in r.stdout, r.output


def test_the_noise_note_on_values_that_do_not_vary_says_so_and_grows_the_set(tmp_path: Path) -> None:
    """Every baseline value 1.0: the note's figures rest on the floor (one question in 24 changing by 1) and
    say so; the set it asks for is larger than 24 (it asked for 2: smaller sets rarely move at all)."""
    rules = 'metrics = { "hit@5" = 0.02 }'
    golden, _, base = _small_case(tmp_path, 24, rules=rules)
    cfg = tmp_path / "rules.toml"
    cfg.write_text(f"[gate]\n{rules}\n")
    r = invoke("gate", str(golden), "--run", str(tmp_path / "good.jsonl"), "--baseline", str(base),
               "--config", str(cfg))
    assert r.exit_code == 0, r.output
    note = next(line for line in r.stdout.splitlines() if "NOTE: hit@5" in line)
    assert "with 24 questions (its values do not vary on them, so the noise is taken as one question in 24 " \
           "changing by 1) a change of equal quality" in note and "so this rule fails on noise" in note
    grow = re.search(r"grow the golden set to (\d+) questions", note)
    assert grow is not None and int(grow.group(1)) > 24, note


def test_the_gate_power_figure_for_tested_rules(baseline: Path, tmp_path: Path) -> None:
    r = _gate_with(baseline, tmp_path, 'metrics = { "ndcg@10" = 0.02 }\nfail_if = "drop_and_significant"', run=GOOD)
    assert "this rule catches a true drop of 0.0200 in only" in r.stdout
    assert "NOTE" not in _gate_with(baseline, tmp_path, 'metrics = { "ndcg@10" = 0.08 }\n'
                                                        'fail_if = "drop_and_significant"', run=GOOD).stdout


def test_rules_built_in_python_are_checked_too() -> None:
    from ragauge.gating.config import GateRules

    for bad in ({"alpha": 0.0}, {"correlation": 1.5}, {"fail_if": ["drop"]}, {"critical_k": 0}):
        with pytest.raises(InputError):
            GateRules(**bad)  # type: ignore[arg-type]


def test_the_gate_streams_a_large_run_file_as_eval_does(baseline: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The gate and baseline update read a run file whole (a 7M-hit TREC run: ~900 MB); a large one is
    read in blocks now, as eval reads it, with the same result."""
    import ragauge.formats.blocks as blocks
    import ragauge.gating.run as gating
    from ragauge.formats.runs import RunStream

    config = str(EXAMPLE / "ragauge.toml")
    whole = gating.gate(GOLDEN, WORSE, baseline, rules=config).to_dict()
    seen: list[type] = []
    real = gating.score_run

    def spy(golden, run, options):  # type: ignore[no-untyped-def]
        seen.append(type(run))
        return real(golden, run, options)

    monkeypatch.setattr(gating, "score_run", spy)
    monkeypatch.setattr(blocks, "STREAM_BYTES", 0)
    assert gating.gate(GOLDEN, WORSE, baseline, rules=config).to_dict() == whole
    r = invoke("gate", GOLDEN, "--run", WORSE, "--baseline", str(baseline), "--config", config)
    assert r.exit_code == 1 and "recall@10" in r.stdout
    record = gating.update_baseline(GOLDEN, GOOD, tmp_path / "b.json", reason="streamed", rules=config)
    assert record["metrics"] == json.loads(baseline.read_text())["metrics"]
    assert seen == [RunStream] * 3


def test_a_result_without_a_gated_value_is_refused_not_passed(baseline: Path, tmp_path: Path) -> None:
    """A rule reads each question's value from the result's columns, where a question without a
    value reads NaN, and a comparison with NaN is False: a tag floor passed on it. It is an error
    naming the question."""
    from ragauge.evaluation.result import Evaluation
    from ragauge.gating.baseline import read_baseline
    from ragauge.gating.check import check_gate
    from ragauge.gating.config import load_rules
    from ragauge.reports.render import render

    rules = tmp_path / "floors.toml"
    rules.write_text('[gate]\nmetrics = { "mrr" = 0.02 }\ntag_floors = { x = { "mrr" = 0.0 } }\n')
    golden = [{**json.loads(line), "tags": ["x"]} for line in Path(GOLDEN).read_text().splitlines()]
    fresh = ragauge.evaluate_run(golden, GOOD, metrics=list(read_baseline(baseline).metrics),
                                 k=read_baseline(baseline).contract["k"])
    d = json.loads(render(fresh, "json"))
    del d["queries"][4]["mrr"]
    broken = Evaluation.from_dict(d)
    base = read_baseline(baseline)
    base = type(base)({**base.data, "golden_hash": broken.meta["golden"]["hash"]}, base.path)
    with pytest.raises(InputError, match=f"question {d['queries'][4]['id']!r} has no value of mrr"):
        check_gate(broken, base, load_rules(rules))


def test_the_documented_pytest_path_works_as_written(baseline: Path) -> None:
    """A baseline made from a run file (docs/ci.md), then assert_no_regression(retrieve=...): the
    callable was asked for 20 hits and the gate always failed ('fetch differ from the baseline's')."""
    from ragauge.formats.runs import read_run
    from ragauge.testing import assert_no_regression

    stored = {r.id: [h.doc_id for h in r.hits] for r in read_run(GOOD).results()}
    queries = {json.loads(line)["query"]: json.loads(line)["id"] for line in Path(GOLDEN).read_text().splitlines()}

    def my_search(query: str, n: int) -> list[str]:
        return stored[queries[query]][:n]

    result = assert_no_regression(GOLDEN, retrieve=my_search, baseline=baseline)
    assert result.passed and all("fetch" not in o.message for o in result.outcomes)


def test_the_gate_and_power_give_one_figure() -> None:
    """The gate said 1,160 questions for "0.02 on hit@5", power said 3,360: one function answers now."""
    from ragauge.gating.run import gate

    result = gate(GOLDEN, GOOD, EXAMPLE / "baseline.json")
    p = next(x for x in result.meta["power"] if x["metric"] == "hit@10")
    report = ragauge.power(GOLDEN, GOOD, metrics="hit@10", effect=0.02)
    assert p["needed_to_detect"] == report.metrics["hit@10"].needed and p["mde"] == report.metrics["hit@10"].mde


def test_gate_with_a_retriever_takes_the_executor_options(tmp_path: Path) -> None:
    """gate --retriever hard-coded concurrency 8, timeout 30 and 3 retries: with the default timeout
    this 0.5 s retriever answers and the baseline is written; with --timeout 0.1 every call fails."""
    here = tmp_path / "slow.py"
    here.write_text("import time\n\ndef search(query, n):\n    time.sleep(0.5)\n    return []\n")
    golden = tmp_path / "g.jsonl"
    golden.write_text('{"id": "q1", "query": "x", "relevant": ["d1"]}\n')
    base = tmp_path / "b.json"
    r = invoke("baseline", "update", str(golden), "--retriever", f"python:{here}:search", "--baseline", str(base),
               "--reason", "r", "--timeout", "0.1", "--retries", "0")
    assert r.exit_code == 2 and "every" in r.stderr.lower(), r.output  # every call timed out: nothing to baseline


def test_a_vanishing_p_value_is_a_significant_drop_not_none(tmp_path: Path) -> None:
    """Past ~1,400 questions that all dropped, p underflowed to 0.0, and '0.0 or 1.0' made it 1.0:
    a metric falling from 1.0 to 0.0 passed a "significant" gate (found by a review)."""
    n = 1500
    golden = tmp_path / "g.jsonl"
    golden.write_text("".join(f'{{"id": "q{i}", "query": "x{i}", "relevant": ["d{i}"]}}\n' for i in range(n)))
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text("".join(f'{{"id": "q{i}", "hits": ["d{i}"]}}\n' for i in range(n)))
    bad.write_text("".join(f'{{"id": "q{i}", "hits": ["x"]}}\n' for i in range(n)))
    cfg = tmp_path / "rules.toml"
    cfg.write_text('[gate]\nmetrics = { "hit@1" = 0.0 }\nfail_if = "significant"\n')
    base = tmp_path / "b.json"
    assert invoke("baseline", "update", str(golden), "--run", str(good), "--baseline", str(base), "--config",
                  str(cfg), "--reason", "r").exit_code == 0
    r = invoke("gate", str(golden), "--run", str(bad), "--baseline", str(base), "--config", str(cfg))
    assert r.exit_code == 1 and "a significant drop" in r.stdout, r.output
