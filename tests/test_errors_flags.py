"""Errors name an option as the caller wrote it: ``--fetch`` on the command line, ``fetch=`` from
Python (``errors.flag``, set for the duration of a command by the ``ragauge`` group). Issue 27: a
Python caller of ``ragauge.index(..., batch_size=0)`` read about a ``--batch-size`` it never typed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.errors import InputError, command_line, flag
from ragauge.runner.options import ExecutorOptions

ROOT = Path(__file__).parents[1]
MINI = ROOT / "tests" / "fixtures" / "mini"
SECTIONS = ROOT / "examples" / "helpdesk" / "sections.jsonl"


def test_flag_is_the_keyword_outside_a_command_and_the_flag_inside() -> None:
    assert flag("batch_size") == "batch_size=" and flag("fetch") == "fetch="
    assert flag("corpus", "PATH") == "corpus=PATH"
    with command_line():
        assert flag("batch_size") == "--batch-size" and flag("fetch") == "--fetch"
        assert flag("corpus", "PATH") == "--corpus PATH"
        with command_line():
            assert flag("doc_id_sep") == "--doc-id-sep"
        assert flag("doc_id_sep") == "--doc-id-sep"  # the inner exit restores the outer command's value
    assert flag("doc_id_sep") == "doc_id_sep="


def test_flag_is_reset_when_the_command_raises() -> None:
    with pytest.raises(InputError), command_line():
        raise InputError(f"{flag('fetch')} is wrong")
    assert flag("fetch") == "fetch="


def test_a_python_caller_reads_keywords(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        ragauge.evaluate(MINI / "golden.jsonl", run=MINI / "run.jsonl", doc_id_sep="#", fetch=0)
    assert str(info.value) == "fetch= (hits kept per question) must be an integer >= 1, got 0"
    with pytest.raises(InputError) as info:
        ragauge.index("sqlite-vec", SECTIONS, str(tmp_path / "x.db"), batch_size=0)
    assert str(info.value) == "batch_size= must be an integer >= 1, got 0"
    with pytest.raises(InputError) as info:
        ExecutorOptions(concurrency=0)
    assert str(info.value) == "concurrency= must be an integer >= 1, got 0"
    with pytest.raises(InputError, match="^on_error= must be one of zero, skip, fail$"):
        ExecutorOptions(on_error="ignore")


def _stderr(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 2, result.output
    return result.stderr


def test_the_same_mistakes_on_the_command_line_read_flags_as_before(tmp_path: Path) -> None:
    """Byte for byte what the commands printed before ``flag`` existed."""
    assert _stderr("eval", str(MINI / "golden.jsonl"), "--run", str(MINI / "run.jsonl"), "--doc-id-sep", "#",
                   "--fetch", "0") == "error: --fetch (hits kept per question) must be an integer >= 1, got 0\n"
    assert _stderr("index", "sqlite-vec", str(SECTIONS), str(tmp_path / "x.db"), "--embedder", "hash",
                   "--batch-size", "0") == "error: --batch-size must be an integer >= 1, got 0\n"
    assert _stderr("run", str(MINI / "golden.jsonl"), "--retriever", "bm25:x.jsonl", "-o", str(tmp_path / "r.jsonl"),
                   "--concurrency", "0") == "error: --concurrency must be an integer >= 1, got 0\n"
    assert _stderr("eval", str(MINI / "golden.jsonl"), "--run", str(MINI / "run.jsonl")) == (
        f"error: {MINI / 'run.jsonl'}: hits of query 'q1' have chunk ids but no doc_id\n"
        "  hint: pass --doc-id-sep '#' or --doc-id-pattern REGEX to map chunk ids to documents\n")


def test_a_python_call_after_a_command_reads_keywords_again() -> None:
    _stderr("eval", str(MINI / "golden.jsonl"), "--run", str(MINI / "run.jsonl"), "--doc-id-sep", "#",
            "--fetch", "0")
    with pytest.raises(InputError, match=r"^fetch= \(hits kept per question\)"):
        ragauge.evaluate(MINI / "golden.jsonl", run=MINI / "run.jsonl", doc_id_sep="#", fetch=0)
    debug = CliRunner().invoke(cli, ["--debug", "eval", str(MINI / "golden.jsonl"), "--run",
                                     str(MINI / "run.jsonl"), "--doc-id-sep", "#", "--fetch", "0"])
    assert isinstance(debug.exception, InputError) and str(debug.exception).startswith("--fetch ")
    assert flag("fetch") == "fetch="  # --debug lets the error through the command: reset all the same


def test_hints_with_a_value_read_as_a_keyword_argument() -> None:
    with pytest.raises(InputError) as info:
        ragauge.evaluate(MINI / "golden.jsonl", run=MINI / "run.jsonl")
    assert info.value.hint == "pass doc_id_sep='#' or doc_id_pattern=REGEX to map chunk ids to documents"
    with pytest.raises(InputError) as info:
        ragauge.pool_golden(MINI / "golden.jsonl", retrievers=["bm25:x.jsonl"], depth=10, fetch=5)
    assert info.value.message.startswith("fetch=5 is below depth=10") and info.value.hint.endswith("(fetch=20)")
    with pytest.raises(InputError) as info:
        ragauge.evaluate(MINI / "golden.jsonl", run=MINI / "run.jsonl", doc_id_sep="#", grades="1-3")
    assert info.value.hint == 'e.g. grades="1:3,2:2,3:1,4:0,-1:0" (Cranfield: 1 is the best grade, -1 not relevant)'
