"""A small deterministic result for the report tests: tests/fixtures/mini's questions plus a few that
exercise escaping (a question with <script> and a pipe, a document id with HTML), a graded question,
a long multi-line question, a retriever error, a question missing from the run and a no-answer one."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragauge._version import __version__
from ragauge.evaluation.result import Evaluation

FIXTURES = Path(__file__).parents[1] / "fixtures" / "reports"
EXPECTED = FIXTURES / "expected"
EVAL_ARGS = ["eval", "golden.jsonl", "--run", "run.jsonl", "-k", "1,3", "--doc-id-sep", "#"]


def normalize(text: str) -> str:
    """Golden files do not change with ragauge's version."""
    return text.replace(f"ragauge {__version__}", "ragauge VERSION").replace(
        f'value="{__version__}"', 'value="VERSION"')


def check_golden(name: str, actual: str) -> None:
    """Compare with tests/fixtures/reports/expected/NAME; UPDATE_GOLDEN=1 rewrites the file instead."""
    path = EXPECTED / name
    actual = normalize(actual)
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing: run UPDATE_GOLDEN=1 pytest tests/reports"
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"{name} differs from its golden file (UPDATE_GOLDEN=1 regenerates it after review)"


@pytest.fixture
def in_fixtures(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Run from tests/fixtures/reports so the paths a result records are short and stable."""
    monkeypatch.chdir(FIXTURES)
    yield FIXTURES


@pytest.fixture(scope="session")
def evaluation() -> Evaluation:
    from ragauge.evaluation.evaluate import evaluate_run
    from ragauge.formats.golden import load_golden
    from ragauge.formats.runs import read_run

    cwd = os.getcwd()
    os.chdir(FIXTURES)
    try:
        return evaluate_run(load_golden("golden.jsonl"), read_run("run.jsonl"), k=[1, 3], doc_id_sep="#")
    finally:
        os.chdir(cwd)
