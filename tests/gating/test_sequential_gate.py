"""The sequential gate: stops at the first rule decided, never before the critical questions, and
refuses what it cannot decide question by question."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.errors import InputError
from ragauge.formats.runs import read_run
from ragauge.gating.sequential import gate_sequential

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scifact"
GOLDEN = str(EXAMPLE / "golden.jsonl")
STORED = {r.id: [h.doc_id for h in r.hits] for r in read_run(EXAMPLE / "bm25.run.jsonl").results()}
QUERIES = {json.loads(line)["query"]: json.loads(line)["id"] for line in Path(GOLDEN).read_text().splitlines()}


def same(query: str, n: int) -> list[str]:
    return STORED[QUERIES[query]][:n]


def broken(query: str, n: int) -> list[str]:
    return STORED[QUERIES[query]][5:5 + n]


def _baseline(tmp_path: Path, rules: str) -> Path:
    folder = tmp_path / str(len(list(tmp_path.iterdir())))  # a new baseline for each set of rules
    folder.mkdir()
    (folder / "rules.toml").write_text("[gate]\n" + rules + "\n")
    path = folder / "baseline.json"
    ragauge.update_baseline(GOLDEN, EXAMPLE / "bm25.run.jsonl", path, reason="first", rules=folder / "rules.toml")
    return path


def test_a_broken_retriever_fails_early_and_an_unchanged_one_passes(tmp_path: Path) -> None:
    path = _baseline(tmp_path, 'metrics = { "ndcg@10" = 0.02, "mrr" = 0.02 }\nfail_if = "significant"')
    bad = gate_sequential(GOLDEN, broken, path)
    assert not bad.passed and bad.meta["sequential"]["asked"] < 60 and bad.meta["sequential"]["calls"] < 60
    assert any("a drop shown after" in o.message for o in bad.outcomes)
    good = gate_sequential(GOLDEN, same, path)
    assert good.passed and good.meta["sequential"]["asked"] == 300


def test_non_inferiority_passes_as_soon_as_it_is_shown(tmp_path: Path) -> None:
    path = _baseline(tmp_path, 'metrics = { "ndcg@10" = 0.1 }\nfail_if = "not_shown_no_worse"\ncritical = ["3"]\n'
                               'critical_k = 10')
    result = gate_sequential(GOLDEN, same, path)
    assert result.passed and result.meta["sequential"]["asked"] < 300, result.meta
    assert [o.kind for o in result.outcomes] == ["metric", "critical"]


def test_what_a_sequential_gate_cannot_decide_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="needs tested rules"):
        gate_sequential(GOLDEN, same, _baseline(tmp_path, 'metrics = { "ndcg@10" = 0.02 }'))
    floors = _baseline(tmp_path, 'metrics = { "ndcg@10" = 0.02 }\nfail_if = "significant"\n'
                                 'tag_floors = { test = { "ndcg@10" = 0.5 } }')
    with pytest.raises(InputError, match="cannot check tag floors"):
        gate_sequential(GOLDEN, same, floors)


def test_the_cli_gates_sequentially(tmp_path: Path) -> None:
    path = _baseline(tmp_path, 'metrics = { "ndcg@10" = 0.02 }\nfail_if = "significant"')
    here = Path(__file__).resolve()
    r = CliRunner().invoke(cli, ["gate", GOLDEN, "--retriever", f"python:{here}:broken", "--baseline", str(path),
                                 "--sequential"])
    assert r.exit_code == 1, r.output
    assert "sequential: asked" in r.stdout and "a drop shown after" in r.stdout
    refused = CliRunner().invoke(cli, ["gate", GOLDEN, "--run", str(EXAMPLE / "bm25.run.jsonl"), "--baseline",
                                       str(path), "--sequential"])
    assert refused.exit_code == 2 and "give --retriever SPEC, not --run" in refused.stderr
