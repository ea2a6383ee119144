"""Errors name an option as the caller wrote it: ``--fetch`` on the command line, ``fetch=`` from
Python (``errors.flag``, set for the duration of a command by the ``ragauge`` group). Issue 27: a
Python caller of ``ragauge.index(..., batch_size=0)`` read about a ``--batch-size`` it never typed."""

from __future__ import annotations

import re
from collections.abc import Callable
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


ENDPOINTS = "http://localhost:8080/v1 (llama.cpp), http://localhost:11434/v1 (Ollama)"


def test_the_chat_models_options_read_as_keywords_from_python_and_as_their_flags_in_a_command() -> None:
    """The judge's and the drafter's endpoint and model (llm.chat.ChatEndpoint) named --judge-endpoint
    and --endpoint to a Python caller of JudgeOptions and DraftOptions (issue 27)."""
    from ragauge import DraftOptions, JudgeOptions

    for options in (JudgeOptions, DraftOptions):
        with pytest.raises(InputError) as info:
            options("ftp://x", "m")
        assert info.value.hint == f"e.g. endpoint={ENDPOINTS}"
        with pytest.raises(InputError) as info:
            options("http://localhost:1/v1", " ")
        assert info.value.hint == "e.g. model=llama3.1:8b"
    with command_line():
        for options, endpoint, model in ((JudgeOptions, "--judge-endpoint", "--judge-model"),
                                         (DraftOptions, "--endpoint", "--model")):
            with pytest.raises(InputError) as info:
                options("ftp://x", "m")
            assert info.value.hint == f"e.g. {endpoint} {ENDPOINTS}"  # as the commands printed before
            with pytest.raises(InputError) as info:
                options("http://localhost:1/v1", "")
            assert info.value.hint == f"e.g. {model} llama3.1:8b"


def test_a_reply_that_is_no_chat_completion_names_the_endpoint_as_the_caller_wrote_it() -> None:
    from ragauge import JudgeOptions
    from ragauge.llm.chat import ChatClient

    with ChatClient(JudgeOptions("http://localhost:1/v1", "m").chat()) as client:
        with pytest.raises(InputError) as info:
            client._reply(b"<html>not found</html>")
        assert info.value.hint == "point endpoint= at an OpenAI-compatible server, e.g. http://localhost:8080/v1"
        with command_line(), pytest.raises(InputError) as info:
            client._reply(b"<html>not found</html>")
        assert info.value.hint == ("point --judge-endpoint at an OpenAI-compatible server, "
                                   "e.g. http://localhost:8080/v1")


def _python_errors(tmp_path: Path) -> list[InputError]:
    """One InputError from each Python call whose message or hint named a command-line flag."""
    from ragauge import DraftOptions, JudgeOptions, TrecEvalOptions, draft_golden, pool_golden, trec_eval
    from ragauge.api.history import history_report
    from ragauge.api.run import RaySetup, retrieve_all

    attribution = ROOT / "tests" / "fixtures" / "attribution"
    trec = ROOT / "tests" / "fixtures" / "trec_eval"
    not_a_history = tmp_path / "other.sqlite"
    import sqlite3

    with sqlite3.connect(not_a_history) as db:
        db.execute("CREATE TABLE t (x)")
    calls: list[Callable[[], object]] = [
        lambda: JudgeOptions("ftp://x", "m"),
        lambda: DraftOptions("http://localhost:1/v1", ""),
        lambda: draft_golden(SECTIONS, DraftOptions("http://localhost:1/v1", "m"), n=0),
        lambda: ragauge.attribute(attribution / "golden.jsonl", attribution / "run.jsonl",
                                  attribution / "answers.jsonl", k=0),
        lambda: ragauge.attribute(attribution / "golden.jsonl", attribution / "run.jsonl",
                                  attribution / "answers.jsonl", threshold=0.5,
                                  judge=JudgeOptions("http://localhost:1/v1", "m")),
        lambda: trec_eval(trec / "qrels.test", trec / "results.test", TrecEvalOptions(max_docs=0)),
        lambda: trec_eval(trec / "qrels.test", trec / "results.test", TrecEvalOptions(["P.x"])),
        lambda: trec_eval(trec / "qrels.test", trec / "results.test", TrecEvalOptions(["map.5"])),
        lambda: history_report(not_a_history),
        lambda: history_report(tmp_path / "none.sqlite"),
        lambda: pool_golden(MINI / "golden.jsonl"),
        lambda: retrieve_all(MINI / "golden.jsonl", lambda query, n: [], ray=RaySetup()),
    ]
    found = []
    for call in calls:
        with pytest.raises(InputError) as info:
            call()
        found.append(info.value)
    return found


def test_no_python_callers_error_names_a_command_line_flag(tmp_path: Path) -> None:
    """Issue 27: an error raised to a Python caller names its keywords (``k=``, ``max_docs=``,
    ``endpoint=``), never ``--judge-endpoint``, ``-k`` or ``-M``. A whole command a hint advises to
    run (``ragauge eval GOLDEN --run RUN --record``) keeps its flags."""
    flags = re.compile(r"(?<![\w-])--?[a-zA-Z]")
    errors = _python_errors(tmp_path)
    named = [str(e) for e in errors if flags.search(re.sub(r"ragauge [a-z][^()]*", "", str(e)))]
    assert named == []
    assert "max_docs= must be a positive number of documents" in [str(e) for e in errors]


def test_validation_findings_name_keywords_from_python(tmp_path: Path) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text('{"id": "q1", "query": "a question", "relevant": {"d1": 1, "d2": 1, "d3": -1}, '
                      '"spans": [{"doc_id": "d1", "quote": "some words"}]}\n', encoding="utf-8")
    hints = [f.hint or "" for f in ragauge.validate_golden(golden, max_relevant=1).findings]
    assert any("max_relevant=2 accepts it" in h for h in hints)
    assert any('grades="1:3,2:2,3:1,4:0,-1:0"' in h for h in hints)
    assert not [h for h in hints if "--" in h]


def test_the_same_mistakes_in_a_command_read_as_before(tmp_path: Path) -> None:
    trec = ROOT / "tests" / "fixtures" / "trec_eval"
    assert _stderr("trec-eval", "-M", "0", str(trec / "qrels.test"), str(trec / "results.test")) == (
        "error: -M must be a positive number of documents\n")
    assert _stderr("trec-eval", "-m", "P.x", str(trec / "qrels.test"), str(trec / "results.test")) == (
        "error: bad cutoff 'x' for measure P\n  hint: e.g. -m P.5,10\n")
    attribution = ROOT / "tests" / "fixtures" / "attribution"
    stderr = _stderr("attribute", str(attribution / "golden.jsonl"), "--run", str(attribution / "run.jsonl"),
                     "--answers", str(attribution / "answers.jsonl"), "--threshold", "0.5",
                     "--judge-endpoint", "ftp://x", "--judge-model", "m", "--corpus", str(attribution / "corpus.jsonl"))
    assert stderr.endswith(f"  hint: e.g. --judge-endpoint {ENDPOINTS}\n")
    stderr = _stderr("golden", "draft", "--corpus", str(SECTIONS), "--endpoint", "ftp://x", "--model", "m",
                     "-o", str(tmp_path / "d.jsonl"))
    assert stderr.endswith(f"  hint: e.g. --endpoint {ENDPOINTS}\n")
    assert _stderr("golden", "pool", str(MINI / "golden.jsonl"), "-o", str(tmp_path / "p.jsonl")).endswith(
        "  hint: give at least one --retriever SPEC or --run RUN\n")
    history = tmp_path / "other.sqlite"
    import sqlite3

    with sqlite3.connect(history) as db:
        db.execute("CREATE TABLE t (x)")
    assert _stderr("history", "--history", str(history)).endswith("  hint: choose another file with --history\n")
