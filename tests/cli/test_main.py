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


def test_a_small_evaluation_imports_neither_pyarrow_compute_nor_numpy_ma(tmp_path: Path) -> None:
    """Both cost a small evaluation's whole process ~40 ms (pyarrow.compute builds ~290 Python
    wrappers; np.unique imports numpy.ma): ragauge calls Arrow's kernels through core.compute."""
    import subprocess
    import sys

    golden = tmp_path / "golden.jsonl"
    golden.write_text('{"id": "q1", "query": "a", "relevant": ["d1"]}\n'
                      '{"id": "q2", "query": "b", "relevant": ["d3"]}\n')
    run = tmp_path / "run.trec"  # a tie (q1: d2, d1) and a duplicate (q1: d2 twice)
    run.write_text("q1 Q0 d2 1 2.0 x\nq1 Q0 d1 2 2.0 x\nq1 Q0 d2 3 1.0 x\nq2 Q0 d3 1 1.0 x\n")
    code = f"""
import io, sys, contextlib
import ragauge.cli.main as m
with contextlib.redirect_stdout(io.StringIO()):
    try:
        m.cli.main(['eval', {str(golden)!r}, '--run', {str(run)!r}, '--format', 'json'], standalone_mode=False)
    except SystemExit:
        pass
print(sorted(name for name in ('pyarrow.compute', 'numpy.ma', 'ragauge.evaluation.evaluate') if name in sys.modules))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['ragauge.evaluation.evaluate']"
