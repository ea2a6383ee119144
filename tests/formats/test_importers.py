"""The readers of other tools' golden-set files, on fixtures written from their documentation
(tests/fixtures/importers/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragauge.errors import InputError
from ragauge.formats.deepeval import read_deepeval
from ragauge.formats.llamaindex import read_llamaindex
from ragauge.formats.ragas import read_ragas

FIXTURES = Path(__file__).parents[1] / "fixtures" / "importers"


def write(tmp_path: Path, rows: list[object], name: str = "set.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_ragas_testset_rows_become_drafts_with_their_contexts() -> None:
    drafts, notes = read_ragas(FIXTURES / "ragas-testset.jsonl")
    assert [(d.loc.rsplit(":", 1)[1], d.tags) for d in drafts] == [
        ("1", ("single_hop_specific_query_synthesizer",)), ("2", ("multi_hop_specific_query_synthesizer",)),
        ("3", ("single_hop_specific_query_synthesizer",))]
    hop = drafts[1].passages
    assert hop[0].startswith("The laptop's security chip (TPM)") and hop[1].startswith("1. On your phone")
    assert drafts[0].extra == {"reference": "For 15 minutes, after 10 wrong attempts in a row.", "source": "synthetic"}
    assert drafts[0].id.startswith("ragas-") and notes == []


def test_ragas_nested_samples_and_json_arrays() -> None:
    nested, _ = read_ragas(FIXTURES / "ragas-testset-nested.jsonl")
    assert nested[0].tags == ("single_hop_specific_query_synthesizer",)
    array, notes = read_ragas(FIXTURES / "ragas-evaluation-dataset.json")
    assert [d.loc.rsplit(":", 1)[1] for d in array] == ["2", "9"]  # the line where each element starts
    assert array[0].tags == () and "source" not in array[0].extra
    assert notes == ["1 sample(s) carry retrieved_contexts/response/multi_responses: one system's answer, not "
                     "labels; ignored"]


@pytest.mark.parametrize(("row", "message"), [
    ({"user_input": [{"content": "hi", "type": "human"}], "reference_contexts": ["x"]}, "multi-turn"),
    ({"question": "q", "contexts": ["x"], "ground_truth": "a"}, "a ragas 0.1 sample"),
    ({"user_input": "q"}, "no 'reference_contexts'"),
    ({"user_input": "q", "reference_contexts": []}, "no 'reference_contexts'"),
    ({"user_input": "q", "reference_contexts": [3]}, "must be a list of strings"),
    ({"user_input": " ", "reference_contexts": ["x"]}, "'user_input' must be a non-empty string"),
])
def test_ragas_refuses_what_it_cannot_label(tmp_path: Path, row: dict[str, object], message: str) -> None:
    path = write(tmp_path, [{"user_input": "fine", "reference_contexts": ["x"]}, row])
    with pytest.raises(InputError) as err:
        read_ragas(path)
    assert message in err.value.message and err.value.where == f"{path}:2"


def test_ragas_refuses_the_same_question_twice(tmp_path: Path) -> None:
    row = {"user_input": "same?", "reference_contexts": ["x"]}
    with pytest.raises(InputError, match="the same question as line 1"):
        read_ragas(write(tmp_path, [row, {**row, "user_input": "same? "}]))


def test_llamaindex_labels_node_ids_or_carries_node_texts() -> None:
    drafts, notes, corpus = read_llamaindex(FIXTURES / "llamaindex-qa-dataset.json")
    assert [(d.id, dict(d.relevant), d.loc.rsplit(":", 1)[1]) for d in drafts] == [
        ("6f1c2a0e-3b7d-4d2a-9c61-2f0b6e8a1d01", {"node-7c1e": 1}, "3"),
        ("a8e4d3b2-51c9-4f0e-8a7b-9d2c6e4f3a02", {"node-2b9f": 1}, "4"),
        ("0d9b7c6a-2e4f-4a1b-b3c8-7f6e5d4c3b03", {"node-5d3a": 1}, "5")]
    assert "node ids" in notes[0] and [nid for nid, _ in corpus] == ["node-7c1e", "node-2b9f", "node-5d3a"]
    texts, notes, _ = read_llamaindex(FIXTURES / "llamaindex-qa-dataset.json", as_text=True)
    assert texts[2].passages == ("Every mailbox has a size limit of 100 GB plus an online archive.",) and notes == []


@pytest.mark.parametrize(("change", "line", "message"), [
    (lambda d: d["relevant_docs"].update({"q9": ["n1"]}), 12, "names query 'q9', which is not in 'queries'"),
    (lambda d: d["relevant_docs"].update({"q1": ["n9"]}), 9, "relevant node 'n9' is not in 'corpus'"),
    (lambda d: d["relevant_docs"].pop("q1"), 3, "query 'q1' has no relevant node ids"),
    (lambda d: d["queries"].update({"q1": ""}), 3, "query 'q1' must be a non-empty string"),
    (lambda d: d.update({"mode": "image"}), 13, "mode 'image'"),
])
def test_llamaindex_is_strict(tmp_path: Path, change, line: int, message: str) -> None:  # type: ignore[no-untyped-def]
    data = {"queries": {"q1": "vpn?"}, "corpus": {"n1": "text"}, "relevant_docs": {"q1": ["n1"]}, "mode": "text"}
    change(data)
    path = tmp_path / "qa.json"
    path.write_text(json.dumps(data, indent=4), encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_llamaindex(path)
    assert message in err.value.message and err.value.where == f"{path}:{line}", path.read_text()


def test_llamaindex_needs_its_three_mappings(tmp_path: Path) -> None:
    path = tmp_path / "qa.json"
    path.write_text(json.dumps({"queries": {}, "corpus": {}}), encoding="utf-8")
    with pytest.raises(InputError, match="'relevant_docs' must be an object"):
        read_llamaindex(path)


def test_deepeval_json_and_jsonl_read_the_same_goldens() -> None:
    from_json, notes_json = read_deepeval(FIXTURES / "deepeval-goldens.json")
    from_jsonl, notes_jsonl = read_deepeval(FIXTURES / "deepeval-goldens.jsonl")
    assert [(d.id, d.passages) for d in from_json] == [(d.id, d.passages) for d in from_jsonl]
    assert from_json[0].passages == ("Your account is locked for 15 minutes after 10 wrong password attempts in a row.",
                                     "1. Wait 15 minutes. The lock clears on its own.")
    assert from_json[0].extra == {"expected_output": "15 minutes; it clears on its own.",
                                  "source_file": "accounts/account-lockout",
                                  "additional_metadata": {"evolutions": ["Reasoning"]}, "source": "deepeval"}
    assert notes_json == [] and "retrieval_context" in notes_jsonl[0]
    by_source, _ = read_deepeval(FIXTURES / "deepeval-goldens.json", relevant="source-file")
    assert [dict(d.relevant) for d in by_source] == [{"accounts/account-lockout": 1}, {"email/mailbox-quota": 1}]
    assert by_source[0].passages == ()


@pytest.mark.parametrize(("row", "message"), [
    ({"scenario": "refund", "turns": []}, "multi-turn"),
    ({"input": "q", "context": None}, "no 'context'"),
    ({"input": "q", "context": {"a": 1}}, "'context' must be a list of strings"),
    ({"input": 3, "context": ["x"]}, "'input' must be a non-empty string"),
    ({"input": "fine?", "context": ["y"]}, "the same question as line 1"),
])
def test_deepeval_refuses_what_it_cannot_label(tmp_path: Path, row: dict[str, object], message: str) -> None:
    path = write(tmp_path, [{"input": "fine?", "context": ["x"]}, row])
    with pytest.raises(InputError) as err:
        read_deepeval(path)
    assert message in err.value.message and err.value.where == f"{path}:2"
    with pytest.raises(InputError, match="no 'source_file'"):
        read_deepeval(write(tmp_path, [{"input": "q", "context": ["x"]}]), relevant="source-file")


def test_each_array_element_and_query_key_is_found_at_its_line(tmp_path: Path) -> None:
    """The lines are counted on from the element (or key) before, in one pass: counting each from
    the top of the file was quadratic (8,000 ragas samples took 73 s to read, 20,000 LlamaIndex
    queries 20 s; 0.36 and 0.45 s now). Held to a count from the top on files laid out every way."""
    import random

    from ragauge.core.jsonl import read_records
    from ragauge.formats.llamaindex import _line

    rng = random.Random(3)
    for case in range(40):
        items = [{"user_input": f"q{i} {'é' * rng.randint(0, 2)}\n", "n": i} for i in range(rng.randint(1, 30))]
        text = json.dumps(items, indent=rng.choice([None, 0, 2]), ensure_ascii=rng.random() < 0.5)
        if case % 3 == 0:
            text = text.replace("\n", "\r\n").replace(", ", ",\n\n ")
        path = tmp_path / f"a{case}.json"
        path.write_text("\n" * rng.randint(0, 2) + text, encoding="utf-8", newline="")
        raw = path.read_text(encoding="utf-8")
        starts, at, decoder = [], raw.index("[") + 1, json.JSONDecoder()
        for _ in items:
            while raw[at] in " \t\r\n,":
                at += 1
            starts.append(raw.count("\n", 0, at) + 1)
            at = decoder.raw_decode(raw, at)[1]
        assert [line for line, _ in read_records(path, what="x")] == starts

        keys = [f"k{i}{'ü' * (i % 2)}" for i in range(rng.randint(1, 25))]
        data = {"queries": {k: f"what about {k}?" for k in keys}, "corpus": {"n": "text"},
                "relevant_docs": {k: ["n"] for k in keys}, "mode": "text"}
        path = tmp_path / f"l{case}.json"
        path.write_text(json.dumps(data, indent=rng.choice([None, 1, 4]), ensure_ascii=rng.random() < 0.5),
                        encoding="utf-8")
        raw = path.read_text(encoding="utf-8")
        drafts, _, _ = read_llamaindex(path)
        assert [d.loc.rpartition(":")[2] for d in drafts] == [str(_line(raw, "queries", k)) for k in keys]


def test_a_key_written_raw_then_escaped_later_does_not_move_the_next_keys(tmp_path: Path) -> None:
    """Each key's line is the earlier of its two spellings (raw and \\u-escaped) after the key before:
    taking the escaped one first jumped past the keys that follow, to another section."""
    path = tmp_path / "qa.json"
    path.write_text('{"queries": {\n"é": "q1?",\n"b": "q2?",\n"c": "q3?"},\n"corpus": {"n": "t"},\n'
                    '"relevant_docs": {"\\u00e9": ["n"], "b": ["n"], "c": ["n"]}, "mode": "text"}\n', encoding="utf-8")
    drafts, _, _ = read_llamaindex(path)
    assert [(d.id, d.loc.rpartition(":")[2]) for d in drafts] == [("é", "2"), ("b", "3"), ("c", "4")]
