"""Bad inputs found by a corpus of 454 cases run against every command (the closing note of issue 10
has the counts): each is refused with one message (exit 2) or explained, never a traceback or a
quietly wrong number."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragauge.cli.main import cli
from ragauge.data.coerce import coerce_hits
from ragauge.errors import InputError
from ragauge.retrieve.corpus import read_documents

MINI = Path(__file__).parents[1] / "fixtures" / "mini"
EVAL = ["eval", str(MINI / "golden.jsonl"), "--run", str(MINI / "run.jsonl"), "--doc-id-sep", "#"]


def invoke(*args: str):  # noqa: ANN201
    return CliRunner().invoke(cli, list(args))


needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")


@needs_dev_full
def test_output_to_a_full_device_fails_and_leaves_the_device_alone() -> None:
    result = invoke(*EVAL, "-o", "/dev/full")
    assert result.exit_code == 2 and "No space left on device" in result.output
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)  # written in place, never replaced by a file


@needs_dev_full
def test_help_into_a_full_device_is_one_message() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "ragauge", "--help"], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "No space left" in done.stderr


def test_output_into_a_folder_is_refused(tmp_path: Path) -> None:
    result = invoke(*EVAL, "-o", str(tmp_path))
    assert result.exit_code == 2 and "a folder is in the way" in result.output


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_device_as_an_input_file_is_refused_not_read_forever() -> None:
    result = invoke("gate", str(MINI / "golden.jsonl"), "--run", str(MINI / "run.jsonl"), "--baseline", "/dev/zero")
    assert result.exit_code == 2 and "found a device" in result.output


def test_a_corpus_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_bytes(b'{"id": "a", "text": "ok"}\n{"id": "b", "text": "caf\xe9"}\n')
    with pytest.raises(InputError) as info:
        list(read_documents(corpus))
    assert info.value.where == f"{corpus}:2" and "not valid UTF-8" in info.value.message


def test_a_retriever_answer_without_hits_is_not_read_as_ids() -> None:
    with pytest.raises(InputError, match="without a 'hits' list"):
        coerce_hits({"results": {"a": 1}})
    assert [h.doc_id for h in coerce_hits({"hits": ["a"]})] == ["a"]


@pytest.mark.parametrize("table", [{"method": 5}, {"headers": "x"}, {"headers": {"A": 1}}, {"method": "DELETE"}])
def test_http_settings_of_the_wrong_type_are_refused(table: dict[str, object]) -> None:
    from ragauge.retrieve.base import RetrieverOptions
    from ragauge.retrieve.registry import open_retriever

    config = {"http": table}
    with pytest.raises(InputError, match=r"\[retriever.http\]"):
        open_retriever("http://127.0.0.1:9/", RetrieverOptions(config=config))


def test_a_meta_line_after_the_first_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "r.jsonl"
    run.write_text('{"id": "q1", "hits": ["a"]}\n{"_meta": {"retriever": "x"}}\n', encoding="utf-8")
    result = invoke("eval", str(MINI / "golden.jsonl"), "--run", str(run))
    assert result.exit_code == 2 and f"{run}:2" in result.output and "'_meta' line after the first" in result.output


def test_resume_refuses_a_file_nothing_says_was_made_by_ragauge_run(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "kb-1", "text": "vpn certificate"}\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    out.write_text('{"id": "q1", "hits": ["kb-9"]}\n', encoding="utf-8")
    result = invoke("run", str(MINI / "golden.jsonl"), "--retriever", f"bm25:{corpus}", "-o", str(out), "--resume")
    assert result.exit_code == 2 and "no '_meta' line" in result.output
    assert out.read_text(encoding="utf-8") == '{"id": "q1", "hits": ["kb-9"]}\n'


def test_an_empty_metric_list_is_an_error_not_the_defaults() -> None:
    result = invoke(*EVAL, "--metrics", "")
    assert result.exit_code == 2 and "no metric given" in result.output


@pytest.fixture
def section_labels(tmp_path: Path) -> tuple[Path, Path]:
    """A golden set labelled at section level and a run of whole documents: every metric is 0."""
    golden = tmp_path / "g.jsonl"
    golden.write_text('{"id": "q1", "query": "x", "relevant": ["kb-1#setup"]}\n', encoding="utf-8")
    run = tmp_path / "r.jsonl"
    run.write_text('{"id": "q1", "hits": ["kb-1"]}\n', encoding="utf-8")
    return golden, run


def test_loud_warnings_reach_stderr_when_the_report_goes_to_a_file(tmp_path: Path,
                                                                    section_labels: tuple[Path, Path]) -> None:
    golden, run = section_labels
    result = invoke("eval", str(golden), "--run", str(run), "--format", "junit", "-o", str(tmp_path / "j.xml"))
    assert result.exit_code == 0 and "NOTE: no returned id equals a judged id" in result.stderr


def test_the_gate_report_carries_the_explanation_of_zeros(tmp_path: Path, section_labels: tuple[Path, Path]) -> None:
    golden, run = section_labels
    baseline = tmp_path / "b.json"
    made = invoke("baseline", "update", str(golden), "--run", str(run), "--baseline", str(baseline), "--reason", "x")
    assert made.exit_code == 0, made.output
    for fmt, needle in (("text", "NOTE: no returned id"), ("markdown", "⚠️ NOTE: no returned id"),
                        ("junit", "<system-err>NOTE: no returned id"), ("json", "NOTE: no returned id")):
        r = invoke("gate", str(golden), "--run", str(run), "--baseline", str(baseline), "--format", fmt)
        assert r.exit_code == 0 and needle in r.stdout, fmt


def test_trec_eval_notes_an_empty_run(tmp_path: Path) -> None:
    empty = tmp_path / "empty.run"
    empty.write_text("", encoding="utf-8")
    result = invoke("trec-eval", str(Path(__file__).parents[1] / "fixtures" / "trec_eval" / "qrels.test"), str(empty))
    assert result.exit_code == 0 and "the run holds no lines, so every measure is 0" in result.stderr


def test_a_history_column_of_the_wrong_type_is_corrupt(tmp_path: Path) -> None:
    history = tmp_path / "h.sqlite"
    assert invoke(*EVAL, "--record", "--history", str(history)).exit_code == 0
    with sqlite3.connect(history) as conn:
        conn.execute("UPDATE entries SET metrics = ?", (json.dumps([1, 2]),))
    result = invoke("history", "--history", str(history))
    assert result.exit_code == 2 and "column 'metrics' holds [1, 2]" in result.output
