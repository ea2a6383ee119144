"""An evaluation's rows held column-wise (``QueryRows``) read as the rows a saved result holds:
every field of every row, the columns, the failures, the per-tag means and the JSON report,
which is written a batch of questions at a time and must not change by a byte."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.cli.main import cli
from ragauge.core.jsonl import compact
from ragauge.evaluation.evaluate import evaluate_run, tag_means
from ragauge.evaluation.failures import classify_misses
from ragauge.evaluation.result import Evaluation
from ragauge.evaluation.rows import QueryRows
from ragauge.evaluation.scores import returned_dict, returned_dicts
from ragauge.formats.runs import RunStream
from ragauge.reports.json import json_parts, render_json
from tests.evaluation.test_streaming import OPTION_SETS, random_case


def old_render_json(evaluation: Evaluation) -> str:
    """The JSON report as ragauge wrote it before streaming it: the whole dict, then the text."""
    parts = []
    for key, value in evaluation.to_dict().items():
        if key == "queries" and value:
            inner = ",\n    ".join(map(compact, value))
            parts.append(f"  {compact(key)}: [\n    {inner}\n  ]")
        else:
            parts.append(f"  {compact(key)}: {compact(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def evaluation(tmp: Path, seed: int, fmt: str, option: int, block: int | None = None) -> Evaluation:
    golden, run, options = random_case(tmp, seed, fmt, option, scatter=False, most=14)
    source: Any = run if block is None else RunStream(run, block_bytes=block, block_hits=max(1, block // 40))
    return evaluate_run(golden, source, **options)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), fmt=st.sampled_from(["jsonl", "trec"]),
       option=st.sampled_from(range(len(OPTION_SETS))))
def test_rows_read_as_the_saved_rows(tmp_path_factory: pytest.TempPathFactory, seed: int, fmt: str,
                                     option: int) -> None:
    try:
        ev = evaluation(tmp_path_factory.mktemp("rows"), seed, fmt, option)
    except Exception as exc:  # an unscorable run: nothing to compare
        assert "InputError" in type(exc).__name__
        return
    rows = ev.queries
    assert isinstance(rows, QueryRows)
    saved = Evaluation.from_dict(json.loads(render_json(ev)))
    assert isinstance(saved.queries, tuple)
    made = list(rows)
    assert made == list(saved.queries) and rows == saved.queries and saved.queries == rows
    # the report's rows, made from the columns: each row's to_dict, keys in the same order
    assert [json.dumps(d) for d in rows.dicts()] == [json.dumps(q.to_dict()) for q in made]
    assert [rows[i] for i in range(len(rows))] == made
    assert [rows[-i] for i in range(1, len(rows) + 1)] == made[::-1]
    assert tuple(rows[1::2]) == tuple(made[1::2])
    with pytest.raises(IndexError):
        rows[len(rows)]
    assert ev.positions == saved.positions
    for m in ev.metrics:
        assert ev.column(m).tolist() == saved.column(m).tolist()
    assert ev.failure_table == saved.failure_table
    assert json.dumps(tag_means(rows, ev.metrics)) == json.dumps(tag_means(made, ev.metrics))
    k = ev.failures.k if ev.failures is not None else None
    again, assessment = classify_misses(rows, k, drift=ev.meta.get("drift"), crowd=None, texts=None)
    plain, plain_assessment = classify_misses(tuple(made), k, drift=ev.meta.get("drift"), crowd=None, texts=None)
    assert isinstance(again, QueryRows) and list(again) == list(plain) and assessment == plain_assessment


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), fmt=st.sampled_from(["jsonl", "trec"]),
       option=st.sampled_from(range(len(OPTION_SETS))), block=st.sampled_from([1, 60, None]),
       batch=st.sampled_from([1, 2, 3, 2048]))
def test_streamed_report_is_the_old_report_byte_for_byte(tmp_path_factory: pytest.TempPathFactory, seed: int,
                                                         fmt: str, option: int, block: int | None,
                                                         batch: int) -> None:
    try:
        ev = evaluation(tmp_path_factory.mktemp("json"), seed, fmt, option, block)
    except Exception as exc:
        assert "InputError" in type(exc).__name__
        return
    old = old_render_json(ev)
    assert "".join(json_parts(ev, batch)) == old
    assert render_json(ev) == old
    assert render_json(replace(ev, queries=tuple(ev.queries))) == old  # rows as a tuple (a saved result's)


def test_an_evaluation_without_rows_writes_an_empty_list(tmp_path: Path) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text('{"id": "a", "query": "x", "relevant": ["d1"]}\n{"id": "b", "query": "y", "relevant": []}\n')
    ev = evaluate_run(golden, {"a": ["d2"], "b": ["d1"]}, k=1)
    empty = Evaluation.from_dict({**json.loads(render_json(ev)), "queries": []})
    assert '"queries": []' in render_json(empty) and render_json(empty) == old_render_json(empty)


def test_cli_json_report_is_written_as_rendered(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2] / "examples" / "helpdesk"
    out = tmp_path / "result.json"
    args = ["eval", str(root / "golden.jsonl"), "--run", str(root / "bm25.run.jsonl"), "-k", "1,5", "--format", "json"]
    written = CliRunner().invoke(cli, [*args, "-o", str(out)])
    printed = CliRunner().invoke(cli, args)
    assert written.exit_code == 0 and printed.exit_code == 0, written.output + printed.output
    ev = evaluate_run(root / "golden.jsonl", root / "bm25.run.jsonl", k=[1, 5])
    assert out.read_text(encoding="utf-8") == printed.stdout == old_render_json(ev)


@given(st.lists(st.tuples(st.text(max_size=3), st.none() | st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.0]),
                          st.none() | st.floats(allow_nan=False))))
def test_shown_documents_made_at_once_are_those_made_one_by_one(shown: list[tuple[str, float | None, float | None]],
                                                               ) -> None:
    docs, grades, scores = ([s[i] for s in shown] for i in range(3))
    made = returned_dicts(docs, iter(grades), scores)
    one_by_one = [returned_dict(d, rank, g, s) for rank, (d, g, s) in enumerate(shown, start=1)]
    assert [json.dumps(d) for d in made] == [json.dumps(d) for d in one_by_one]
