"""ragauge trec-eval reproduces trec_eval v10's own test fixtures, line for line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragauge.cli.main import cli

SUPPORTED = re.compile(
    r"(P|recall|ndcg_cut|map_cut|success|unj)_\d+|runid|num_q|num_ret|num_rel|num_rel_ret|map|gm_map|Rprec|recip_rank|ndcg"
)

CASES = [
    ("out.test", [], "qrels.test", "results.test"),
    ("out.test", [], "qrels.test.with-comments", "results.test"),
    ("out.comment.test", [], "qrels.comment.test", "results.comment.test"),
    ("out.test.a", ["-m", "all_trec"], "qrels.test", "results.test"),
    ("out.test.aq", ["-m", "all_trec", "-q"], "qrels.test", "results.test"),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c"], "qrels.test", "results.trunc"),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100"], "qrels.test", "results.trunc"),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2"], "qrels.rel_level", "results.test"),
]


def expected_lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines(keepends=True) if SUPPORTED.fullmatch(line.split()[0])]


@pytest.mark.parametrize(("expected", "flags", "qrels", "run"), CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_reproduces_trec_eval_fixture(trec_dir: Path, expected: str, flags: list[str], qrels: str, run: str) -> None:
    result = CliRunner().invoke(cli, ["trec-eval", *flags, str(trec_dir / qrels), str(trec_dir / run)])
    assert result.exit_code == 0, result.output
    want = expected_lines(trec_dir / expected)
    got = result.stdout.splitlines(keepends=True)
    assert len(want) > 15
    assert got == want


def test_fixture_filter_keeps_every_supported_family(trec_dir: Path) -> None:
    names = {line.split()[0].rsplit("_", 1)[0] if line.split()[0][-1].isdigit() else line.split()[0]
             for line in expected_lines(trec_dir / "out.test.aq")}
    assert {"P", "recall", "ndcg_cut", "map_cut", "success", "map", "Rprec", "recip_rank", "ndcg",
            "num_ret", "num_rel", "num_rel_ret", "gm_map", "runid", "num_q", "unj"} <= names


def test_unsupported_measures_are_named_on_stderr(trec_dir: Path) -> None:
    result = CliRunner().invoke(cli, ["trec-eval", "-m", "bpref", "-m", "map",
                                      str(trec_dir / "qrels.test"), str(trec_dir / "results.test")])
    assert result.exit_code == 0
    assert "bpref" in result.stderr
    assert result.stdout == "map                   \tall\t0.1785\n"


def test_cutoff_parameters_sorted_and_floored(trec_dir: Path) -> None:
    result = CliRunner().invoke(cli, ["trec-eval", "-m", "P.10,5", "-m", "ndcg_cut.23.4",
                                      str(trec_dir / "qrels.test"), str(trec_dir / "results.test")])
    assert result.exit_code == 0, result.output
    assert [line.split()[0] for line in result.stdout.splitlines()] == ["P_5", "P_10", "ndcg_cut_23"]
