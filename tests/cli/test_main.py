"""The command group: lazy command loading and the batch tuning of evaluation commands."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragauge.cli.main import BATCH, COMMANDS, cli

DATA = Path(__file__).parents[1] / "fixtures"


def test_every_command_loads_and_is_listed() -> None:
    out = CliRunner().invoke(cli, ["--help"]).output
    for name in COMMANDS:
        assert name in out
        assert cli.get_command(None, name).name == name  # type: ignore[arg-type, union-attr]
    assert BATCH <= set(COMMANDS)


def test_batch_commands_tune_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from ragauge.cli.process import GC_OBJECTS

    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, *before[1:])
        CliRunner().invoke(cli, ["golden", "--help"])
        assert "NUMPY_MADVISE_HUGEPAGE" not in os.environ  # not an evaluation command
        assert gc.get_threshold()[0] == 700
        CliRunner().invoke(cli, ["run", "--help"])  # run keeps every answer: the collector's setting alone
        assert "NUMPY_MADVISE_HUGEPAGE" not in os.environ
        assert gc.get_threshold() == (GC_OBJECTS, *before[1:])
        gc.set_threshold(700, *before[1:])
        result = CliRunner().invoke(cli, ["trec-eval", str(DATA / "trec_eval" / "qrels.test"),
                                          str(DATA / "trec_eval" / "results.test"), "-m", "map"])
        assert result.exit_code == 0, result.output
        assert os.environ["NUMPY_MADVISE_HUGEPAGE"] == "0"
        assert gc.get_threshold() == (GC_OBJECTS, *before[1:])
    finally:
        gc.set_threshold(*before)


def test_error_messages_cannot_put_control_sequences_on_the_terminal(tmp_path: Path) -> None:
    """A crafted path (or id) in an error message cannot clear the line and fake a 'gate PASSED'."""
    crafted = tmp_path / "x\x1b[2K\rgate PASSED\n.jsonl"
    result = CliRunner().invoke(cli, ["eval", str(crafted), "--run", str(crafted)])
    assert result.exit_code == 2
    assert "\x1b" not in result.output and "\r" not in result.output
    assert "\\x1b[2K\\rgate PASSED\\n.jsonl" in result.output
    assert result.output.count("\n") == 2  # the message and its hint, nothing more


def test_batch_commands_are_tuned_before_numpy_is_imported() -> None:
    """numpy reads NUMPY_MADVISE_HUGEPAGE when it is imported: a command module that imported it
    before tune_for_batch() made 'ragauge eval' 1.3x slower at MS MARCO scale (huge-page stalls)."""
    import subprocess
    import sys

    code = f"""
import io, sys, contextlib
import ragauge.cli.main as m
seen = []
real = m.tune_for_batch
def spy():
    seen.append('numpy' in sys.modules)
    real()
m.tune_for_batch = spy
with contextlib.redirect_stdout(io.StringIO()):
    try:
        m.cli.main(['eval', {str(DATA / 'mini' / 'golden.jsonl')!r}, '--run', {str(DATA / 'mini' / 'run.jsonl')!r},
                    '--doc-id-sep', '#'], standalone_mode=False)
    except SystemExit:
        pass
print(seen)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[False]"


NOT_AT_GOLDEN_SCALE = (
    "pyarrow.compute",  # ~290 Python wrappers: ragauge calls Arrow's kernels through core.compute
    "numpy.ma",  # np.unique imports it
    "_hashlib",  # OpenSSL: small inputs are hashed by the interpreter's own SHA-256 (core.hashing)
    "importlib.resources", "tempfile",  # the bundled MiniLM vocabulary, read only for --tokenizer minilm
    "html.parser", "gzip", "ragauge.formats.corpus", "ragauge.evaluation.text",  # only with --corpus
    "ragauge.evaluation.drift",  # only when the index's documents are known
)
"""What ``ragauge eval`` of a small run without --corpus must not import (issue 17: at golden-set
scale the whole process is start-up, and each of these cost it milliseconds)."""


def _imported(args: list[str], names: tuple[str, ...], prelude: str = "") -> tuple[object, list[str]]:
    """Run the CLI with ``args`` in a fresh interpreter (after the code ``prelude``): its exit code
    and which of ``names`` it imported."""
    import subprocess
    import sys

    code = f"""
import io, sys, contextlib
{prelude}
import ragauge.cli.main as m
with contextlib.redirect_stdout(io.StringIO()):
    try:
        code = m.cli.main({args!r}, standalone_mode=False)
    except SystemExit as exc:
        code = exc.code
print(repr(code))
print(sorted(name for name in {names!r} if name in sys.modules))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    exit_code, imported = out.strip().splitlines()
    return exit_code, eval(imported)


@pytest.mark.parametrize("kind", ["trec", "jsonl"])
def test_a_small_evaluation_imports_only_what_its_input_needs(tmp_path: Path, kind: str) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text('{"id": "q1", "query": "a", "relevant": ["d1"]}\n'
                      '{"id": "q2", "query": "b", "relevant": ["d3"]}\n')
    run = tmp_path / f"run.{kind}"
    if kind == "trec":  # a tie (q1: d2, d1) and a duplicate (q1: d2 twice)
        run.write_text("q1 Q0 d2 1 2.0 x\nq1 Q0 d1 2 2.0 x\nq1 Q0 d2 3 1.0 x\nq2 Q0 d3 1 1.0 x\n")
    else:
        run.write_text('{"id": "q1", "hits": ["d2", "d1", "d2"]}\n'
                       '{"id": "q2", "hits": [{"doc_id": "d3", "score": 1}]}\n')
    reader = ("pyarrow.csv", "ragauge.formats.trec")  # the TREC reader: not for a JSONL run
    forbidden = NOT_AT_GOLDEN_SCALE + (() if kind == "trec" else reader)
    args = ["eval", str(golden), "--run", str(run), "--format", "json", "-o", str(tmp_path / "r.json")]
    code, imported = _imported(args, ("ragauge.evaluation.evaluate", *forbidden))
    assert code in ("0", "None")
    assert imported == ["ragauge.evaluation.evaluate"]  # it did evaluate, and loaded none of the others
    code, imported = _imported(["eval", str(golden), "--run", str(run), "--corpus", str(tmp_path / "missing")],
                               ("ragauge.formats.corpus",))
    assert code == "2" and imported == ["ragauge.formats.corpus"]  # the check itself can see a deferred import


@pytest.mark.parametrize("streamed", [False, True])
def test_a_large_evaluation_calls_arrow_kernels_without_pyarrow_compute(tmp_path: Path, streamed: bool) -> None:
    """A run read block by block (here: 40-byte blocks, a query whose lines are scattered, chunk
    ids) goes through core.compute too: importing pyarrow.compute cost trec-eval and eval ~50 ms
    at MS MARCO scale, holding the interpreter the run's reader needs (issue 17)."""
    golden = tmp_path / "golden.jsonl"
    golden.write_text('{"id": "q1", "query": "a", "relevant": ["d1"]}\n{"id": "q2", "query": "b", "relevant": ["d3"]}\n'
                      '{"id": "q3", "query": "c", "relevant": []}\n')
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d3 1\n")
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d2#1 1 2.0 x\nq1 Q0 d1#2 2 2.0 x\nq2 Q0 d3#0 1 1.0 x\nq3 Q0 d9#0 1 1.0 x\n"
                   "q1 Q0 d2#3 3 1.0 x\nq2 Q0 d4#1 2 0.5 x\n")
    prelude = ("import ragauge.formats.blocks as b; b.STREAM_BYTES = 0; b.BLOCK_BYTES = 40" if streamed else "")
    names = ("ragauge.metrics.build", "pyarrow.compute")
    for args in (["eval", str(golden), "--run", str(run), "--format", "json", "-o", str(tmp_path / "a.json")],
                 ["eval", str(golden), "--run", str(run), "--doc-id-sep", "#", "-o", str(tmp_path / "b.txt")],
                 ["trec-eval", str(qrels), str(run), "-q", "-c"]):
        code, imported = _imported(args, names, prelude)
        assert code in ("0", "None"), args
        assert imported == ["ragauge.metrics.build"], args  # it did score the run, without the wrappers


def test_help_imports_no_evaluation_module() -> None:
    code, imported = _imported(["--help"], ("numpy", "pyarrow", "ragauge.evaluation.result",
                                            "ragauge.evaluation.patterns", "ragauge.cli.main"))
    assert code in ("0", "None")
    assert imported == ["ragauge.cli.main"]


def test_a_run_against_an_http_retriever_imports_no_columnar_stack(tmp_path: Path) -> None:
    """``ragauge run`` records answers as plain Python and never builds the columnar Run: numpy and
    pyarrow cost a run ~0.15 s of start-up and its last answer ~0.1 s more (issue 17)."""
    from ..retrieve.servers import search_server

    golden = tmp_path / "golden.jsonl"
    golden.write_text('{"id": "q1", "query": "vpn", "relevant": ["kb-vpn"]}\n'
                      '{"id": "q2", "query": "printer", "relevant": ["kb-printer"]}\n')
    out = tmp_path / "run.jsonl"
    with search_server() as server:
        code, imported = _imported(["run", str(golden), "--retriever", server["url"], "-o", str(out)],
                                   ("numpy", "pyarrow", "aiohttp"))
    assert code in ("0", "None")
    assert imported == ["aiohttp"]  # it did call the retriever, and loaded neither
    assert len(out.read_text().splitlines()) == 3  # the header and both answers
    code, imported = _imported(["run", str(golden), "--retriever", "http://127.0.0.1:9/search", "--retries", "0",
                                "-o", str(tmp_path / "down.jsonl")], ("numpy", "pyarrow", "aiohttp"))
    assert code == "2" and imported == ["aiohttp"]  # every call failed: the message, and still no Run built


def test_a_message_with_several_problems_prints_them_on_lines(tmp_path: Path) -> None:
    """golden merge printed its list of problems with a literal \\n between them; a newline inside
    quoted text still cannot start an unindented line."""
    golden, candidates = tmp_path / "g.jsonl", tmp_path / "c.jsonl"
    golden.write_text('{"id": "q1", "query": "a", "relevant": ["d"]}\n')
    candidates.write_text('{"id": "q1", "query": "b", "relevant": ["d"]}\n{"id": "q2", "query": "c"}\n')
    r = CliRunner().invoke(cli, ["golden", "merge", str(golden), str(candidates), "-o", str(tmp_path / "o.jsonl")])
    assert r.exit_code == 2 and "\\n" not in r.stderr
    lines = r.stderr.splitlines()
    assert lines[0].startswith("error: ") and all(line.startswith("  ") for line in lines[1:]), r.stderr
    from ragauge.cli.main import _shown
    from ragauge.errors import InputError

    shown = _shown(InputError("bad id 'x\ngate PASSED'"))
    assert "\ngate PASSED" not in shown
