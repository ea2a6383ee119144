"""The verbs that score a run *or* a retriever (evaluate, gate, update_baseline) take exactly one, and
refuse beside a run the options only a retriever call has. Asking a retriever needs no labels: ``run`` asks
unlabelled questions too, while a verb that scores by human labels alone refuses them before a call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.errors import InputError

SCIFACT = Path(__file__).parents[2] / "examples" / "scifact"
GOLDEN, RUN, BASELINE = SCIFACT / "golden.jsonl", SCIFACT / "bm25.run.jsonl", SCIFACT / "baseline.json"


def test_exactly_one_of_a_run_and_a_retriever() -> None:
    with pytest.raises(InputError, match=r"evaluate\(\) takes exactly one of a run or a retriever"):
        ragauge.evaluate(GOLDEN)
    with pytest.raises(InputError, match=r"evaluate\(\) takes exactly one"):
        ragauge.evaluate(GOLDEN, "bm25:x.jsonl", run=RUN)
    with pytest.raises(InputError, match=r"gate\(\) takes exactly one"):
        ragauge.gate(GOLDEN, RUN, BASELINE, retriever="bm25:x.jsonl")
    with pytest.raises(InputError, match=r"update_baseline\(\) takes exactly one"):
        ragauge.update_baseline(GOLDEN, None, "b.json", reason="r")


@pytest.mark.parametrize("options", [{"save_run": "kept.jsonl"}, {"concurrency": 2}, {"resume": True},
                                     {"timeout": 5.0, "retries": 1}, {"doc_id_key": "id"}])
def test_a_run_refuses_what_only_a_retriever_call_takes(options: dict[str, object]) -> None:
    with pytest.raises(InputError, match=f"{', '.join(options)} go\\(es\\) with a retriever, not with a run"):
        ragauge.evaluate(GOLDEN, run=RUN, **options)  # type: ignore[arg-type]


def test_the_gate_refuses_them_too_and_scores_a_run_as_before() -> None:
    with pytest.raises(InputError, match="concurrency go\\(es\\) with a retriever"):
        ragauge.gate(GOLDEN, RUN, BASELINE, concurrency=4)
    assert ragauge.gate(GOLDEN, RUN, BASELINE).passed
    assert ragauge.evaluate(GOLDEN, run=RUN, k=10).summary == ragauge.evaluate_run(GOLDEN, RUN, k=10).summary


def _partly_labelled(folder: Path) -> tuple[Path, Path]:
    """A golden set whose second question is unlabelled (``"relevant": null``), and a corpus for bm25."""
    golden, corpus = folder / "golden.jsonl", folder / "corpus.jsonl"
    golden.write_text("".join(json.dumps(q) + "\n" for q in [
        {"id": "q1", "query": "red apples", "relevant": ["d1"]},
        {"id": "q2", "query": "green pears", "relevant": None},
        {"id": "q3", "query": "blue plums", "relevant": []}]), encoding="utf-8")
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "text": text}) + "\n" for i, text in
                              enumerate(["red apples", "green pears", "blue plums"], start=1)), encoding="utf-8")
    return golden, corpus


def test_run_asks_unlabelled_questions_too(tmp_path: Path) -> None:
    golden, corpus = _partly_labelled(tmp_path)
    asked: list[str] = []

    def retriever(query: str, n: int) -> list[str]:
        asked.append(query)
        return ["d1", "d2", "d3"][:n]

    run = ragauge.run_retriever(golden, retriever)
    assert sorted(asked) == ["blue plums", "green pears", "red apples"] and set(run.queries) == {"q1", "q2", "q3"}
    out = tmp_path / "run.jsonl"
    result = CliRunner().invoke(cli, ["run", str(golden), "--retriever", f"bm25:{corpus}", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert set(ragauge.read_run(out).queries) == {"q1", "q2", "q3"}


def test_a_verb_scoring_by_human_labels_refuses_them_before_asking(tmp_path: Path) -> None:
    golden, corpus = _partly_labelled(tmp_path)
    asked: list[str] = []

    def retriever(query: str, n: int) -> list[str]:
        asked.append(query)
        return []

    with pytest.raises(InputError, match="'relevant' is null: question 'q2' is unlabelled") as info:
        ragauge.evaluate(golden, retriever)
    assert info.value.where == f"{golden}:2" and asked == []
    result = CliRunner().invoke(cli, ["eval", str(golden), "--retriever", f"bm25:{corpus}"])
    assert result.exit_code == 2 and f"{golden}:2: 'relevant' is null" in result.output
    assert "--auto-labels" in result.output and "Traceback" not in result.output
