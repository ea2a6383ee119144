from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ragauge.cli.main import cli


def run_cli(*args: str) -> object:
    return CliRunner().invoke(cli, list(args))


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_duplicate_document_in_run_is_an_error_as_in_trec_eval(tmp_path: Path) -> None:
    qrels = write(tmp_path, "q", "1 0 a 1\n")
    run = write(tmp_path, "r", "1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n1 Q0 a 3 0.5 x\n")
    result = run_cli("trec-eval", qrels, run)
    assert result.exit_code == 2
    assert "retrieves document 'a' more than once" in result.stderr
    assert "Traceback" not in result.output


def test_duplicate_judgement_is_an_error(tmp_path: Path) -> None:
    qrels = write(tmp_path, "q", "1 0 a 1\n1 0 a 0\n")
    run = write(tmp_path, "r", "1 Q0 a 1 2.0 x\n")
    result = run_cli("trec-eval", qrels, run)
    assert result.exit_code == 2
    assert "duplicate judgement for query '1', document 'a'" in result.stderr


def test_short_line_names_file_and_line(tmp_path: Path) -> None:
    qrels = write(tmp_path, "q", "1 0 a 1\n")
    run = write(tmp_path, "r", "1 Q0 a 1 2.0 x\n\n1 Q0 b 2\n")
    result = run_cli("trec-eval", qrels, run)
    assert result.exit_code == 2
    assert f"{run}:3: expected 6 fields" in result.stderr


def test_bad_score_names_line(tmp_path: Path) -> None:
    qrels = write(tmp_path, "q", "1 0 a 1\n")
    run = write(tmp_path, "r", "1 Q0 a 1 2.0 x\n1 Q0 b 2 high x\n")
    result = run_cli("trec-eval", qrels, run)
    assert result.exit_code == 2
    assert f"{run}:2: field 'score' must be a number, got 'high'" in result.stderr


def test_non_integer_relevance_names_line(tmp_path: Path) -> None:
    qrels = write(tmp_path, "q", "1 0 a 1\n1 0 b x\n")
    run = write(tmp_path, "r", "1 Q0 a 1 2.0 x\n")
    result = run_cli("trec-eval", qrels, run)
    assert result.exit_code == 2
    assert f"{qrels}:2: field 'rel' must be an integer" in result.stderr


def test_missing_file(tmp_path: Path) -> None:
    result = run_cli("trec-eval", str(tmp_path / "nope"), str(tmp_path / "nope2"))
    assert result.exit_code == 2
    assert "qrels file not found" in result.stderr


def test_unknown_measure_lists_supported(tmp_path: Path) -> None:
    qrels = write(tmp_path, "q", "1 0 a 1\n")
    run = write(tmp_path, "r", "1 Q0 a 1 2.0 x\n")
    result = run_cli("trec-eval", "-m", "nope", qrels, run)
    assert result.exit_code == 2
    assert "unknown trec_eval measure 'nope'" in result.stderr


@pytest.mark.parametrize("sep", [" ", "\t", "  \t "])
def test_any_whitespace_separates_fields_and_extra_fields_are_ignored(tmp_path: Path, sep: str) -> None:
    qrels = write(tmp_path, "q", sep.join(["1", "0", "a", "1"]) + " \r\n")
    run = write(tmp_path, "r", sep.join(["1", "Q0", "a", "1", "2.0", "tag", "junk"]) + "\n# comment\n")
    result = run_cli("trec-eval", "-m", "map", "-m", "runid", qrels, run)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["runid                 \tall\ttag", "map                   \tall\t1.0000"]


def test_ties_broken_by_docno_descending(tmp_path: Path) -> None:
    qrels = write(tmp_path, "q", "1 0 b 1\n")
    # equal scores: trec_eval ranks 'c' > 'b' > 'a' (docno descending), whatever the file order or rank column
    run = write(tmp_path, "r", "1 Q0 a 1 1.0 x\n1 Q0 b 2 1.0 x\n1 Q0 c 3 1.0 x\n")
    result = run_cli("trec-eval", "-m", "recip_rank", qrels, run)
    assert result.stdout.split()[-1] == "0.5000"


def test_infinite_scores_rank_as_trec_eval_ranks_them_and_nan_is_refused(tmp_path: Path) -> None:
    """trec_eval reads +-inf with atof and ranks it above (below) every finite score; ragauge refused
    it as 'not a finite number'. NaN has no rank and is still refused."""
    from click.testing import CliRunner

    from ragauge.cli.main import cli

    (tmp_path / "qrels").write_text("1 0 d1 1\n1 0 d2 1\n")
    (tmp_path / "run").write_text("1 Q0 d2 1 -inf t\n1 Q0 d3 2 5 t\n1 Q0 d1 3 inf t\n1 Q0 d4 4 -INF t\n")
    r = CliRunner().invoke(cli, ["trec-eval", "-m", "map", "-m", "P.1", str(tmp_path / "qrels"), str(tmp_path / "run")])
    assert r.exit_code == 0, r.output
    # d1 (inf), d3 (5), then d4 and d2 tied at -inf, broken by docno descending: d4, d2
    assert "map                   \tall\t0.7500" in r.stdout and "P_1                   \tall\t1.0000" in r.stdout
    (tmp_path / "run").write_text("1 Q0 d1 1 nan t\n")
    r = CliRunner().invoke(cli, ["trec-eval", str(tmp_path / "qrels"), str(tmp_path / "run")])
    assert r.exit_code == 2 and "score nan is not a number" in r.stderr and "run:1" in r.stderr
