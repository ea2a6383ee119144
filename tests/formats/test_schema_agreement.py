"""The schemas and ragauge's readers agree: a record the reader takes validates, a record it refuses
does not, except where the refusal rests on what one record's schema cannot say (a document listed
twice, a span that ends before it starts, a rank by a system the header does not name); each such
reason is listed here, and the test checks the reader gave exactly one of them. Property tests draw
records near each format's shape; the TOML formats are held to hand-written cases."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from ragauge import schemas
from ragauge.errors import InputError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

Values = list[Any] | st.SearchStrategy[Any]


def _strategy(values: Values) -> st.SearchStrategy[Any]:
    return st.sampled_from(values) if isinstance(values, list) else values


@st.composite
def near(draw: st.DrawFn, valid: dict[str, Values], spoilt: dict[str, Values], optional: tuple[str, ...] = ()
         ) -> dict[str, Any]:
    """A record drawn from ``valid`` (each ``optional`` key present or not), then up to two keys spoilt:
    given a value from ``spoilt`` (a key only there is added) or dropped. Many records stay whole,
    so both what a reader takes and what it refuses are drawn."""
    obj = {k: draw(_strategy(v)) for k, v in valid.items() if k not in optional or draw(st.booleans())}
    for key in draw(st.lists(st.sampled_from(sorted({*valid, *spoilt})), max_size=2, unique=True)):
        if key in spoilt and (key not in valid or draw(st.booleans())):
            obj[key] = draw(_strategy(spoilt[key]))
        else:
            obj.pop(key, None)
    return obj


def agree(name: str, obj: dict[str, Any], read: Callable[[dict[str, Any]], object], inexpressible: str = "^$") -> None:
    """``read(obj)`` succeeds exactly when ``obj`` validates against schema ``name``, but for a refusal
    whose message matches ``inexpressible`` (what the schema cannot say), which must then be the reason."""
    try:
        read(obj)
        refused = None
    except InputError as exc:
        refused = exc.message
    valid = Draft202012Validator(schemas.schema(name)).is_valid(obj)
    if valid and refused is not None:
        assert re.search(inexpressible, refused), f"the schema takes what ragauge refuses ({refused}): {obj}"
    else:
        assert valid == (refused is None), f"ragauge {'refuses: ' + refused if refused else 'takes'} {obj}"


def _line_file(tmp: Path, obj: dict[str, Any]) -> Path:
    path = tmp / "one.jsonl"
    path.write_text(json.dumps(obj) + "\n", encoding="utf-8")
    return path


# --- golden ----------------------------------------------------------------------------------------------

LABEL = near({"doc": ["d1", "d2", "d3"], "start": [0, 3, 3.0, 12], "end": [9, 12], "quote": ["the words", None],
              "grade": [1, 2, 0.5, -1]},
             {"doc": ["", None, 3], "start": [-1, 2.5, True, None, "3"], "end": [-1, 2.5, None], "quote": [" ", "", 3],
              "grade": [True, None, "2", 1e10], "page": [1]}, optional=("start", "end", "quote", "grade"))
GOLDEN = near(
    {"id": ["q1", "q2"], "query": ["a question", ""], "tags": st.one_of(st.none(), st.lists(st.sampled_from("ab"))),
     "relevant": st.one_of(st.lists(st.one_of(st.sampled_from(["d1", "d2", "d3"]), LABEL), max_size=3),
                           st.dictionaries(st.sampled_from(["d1", "d2"]), st.sampled_from([1, 2, 0.5, -1, 0])))},
    {"id": ["", 3, None, True], "query": [3, None, ["q"], "x" * 100_001], "tags": ["a", ["a", 1], 3],
     "relevant": ["d1", None, 3, [""], [3], [None], {"d1": "2"}, {"d1": True}, {"d1": 1e10}, {"d1": None}, {"": 1}],
     "source": ["synthetic", 3], "conversation": ["c1", "", 3], "turn": [1, 3, 0, 2.5, "2", True],
     "history": [["hi"], "hi", [3]]}, optional=("tags",))
CONVERSATION = near({"id": ["q1"], "query": ["a question"], "relevant": [["d1"]], "conversation": ["c1", "c2"],
                     "turn": [1, 4], "history": [["earlier"], []]},
                    {"conversation": ["", 3, None], "turn": [0, -1, 2.5, "2", None], "history": ["hi", [3], None]},
                    optional=("history",))


@settings(max_examples=400)
@given(st.one_of(GOLDEN, CONVERSATION))
def test_golden_lines(obj: dict[str, Any]) -> None:
    from ragauge.data.golden import parse_golden_line

    agree("golden", obj, lambda o: parse_golden_line(o, "line"),
          "listed twice|both whole and by a span|not after its start")


# --- run -------------------------------------------------------------------------------------------------

HIT = st.one_of(
    st.sampled_from(["d1", ""]),
    near({"doc_id": ["d1", None], "chunk_id": ["d1#0", None], "score": [1.5, 2, None], "length": [0, 50, None],
          "start": [0, 5, None], "end": [10, 3, None]},
         {"doc_id": [3, True], "chunk_id": [3], "score": ["1", True], "length": [-1, 2.5, "5"], "start": [-1, 2.5],
          "end": [-3, "x"], "x": [1]}, optional=("doc_id", "chunk_id", "score", "length", "start", "end")))
RUN = st.one_of(
    near({"id": ["q1"], "hits": st.lists(HIT, max_size=3), "latency_ms": [0, 12.5, None], "cost": [0.001, None],
          "error": [None, "timeout"]},
         {"id": ["", 3, None], "hits": [None, "d1", 3], "latency_ms": [-1, "5", True], "cost": [-0.1, "x"],
          "_meta": [{"retriever": "bm25"}]}, optional=("hits", "latency_ms", "cost", "error")),
    near({"_meta": [{"retriever": "bm25"}, {}]}, {"_meta": [None, 3, "bm25"], "id": ["q1"], "x": [1]}))
CALL = near({"query": ["sub-question", "", None], "hits": st.lists(HIT, max_size=2), "latency_ms": [0, 3.5, None],
             "cost": [0.01, None], "tool": ["search", None], "stage": ["first", "rerank", None]},
            {"query": [3], "hits": [None, "d1"], "latency_ms": [-1, "5"], "cost": ["x"], "tool": ["", 3],
             "stage": ["", 7]}, optional=("query", "latency_ms", "cost", "tool", "stage"))
CALLS = near({"id": ["q1"], "calls": st.lists(CALL, min_size=1, max_size=3), "latency_ms": [12.5, None]},
             {"calls": [[], None, "x"], "hits": [["d1"]]}, optional=("latency_ms",))


@settings(max_examples=300, deadline=None)  # the first refusal reads cold paths
@given(st.one_of(RUN, CALLS))
def test_run_lines(tmp_path_factory: pytest.TempPathFactory, obj: dict[str, Any]) -> None:
    from ragauge.formats.runs import read_run_jsonl

    tmp = tmp_path_factory.getbasetemp()
    agree("run", obj, lambda o: read_run_jsonl(_line_file(tmp, o)), "before its start|has no 'stage' while")


# --- corpus, answers, judgements -------------------------------------------------------------------------

@settings(max_examples=200)
@given(near({"id": ["d1", 7], "title": ["A title", None, 3], "text": ["the text", ""]},
            {"id": [None], "_id": [None, "d2"], "text": [None, 3], "metadata": [{}]}, optional=("title", "text")))
def test_corpus_lines(tmp_path_factory: pytest.TempPathFactory, obj: dict[str, Any]) -> None:
    from ragauge.formats.corpus import iter_documents

    tmp = tmp_path_factory.getbasetemp()
    agree("corpus", obj, lambda o: list(iter_documents(_line_file(tmp, o))))


@settings(max_examples=300)
@given(near({"id": ["q1"], "verdict": ["good", "bad", " Bad ", "GOOD", True, False, None], "score": [0.5, 3, None],
             "answer": ["the answer", None], "source": ["review", None]},
            {"id": ["", 3, None], "verdict": ["goodish", "", 1, "maybe"], "score": ["0.5", True], "answer": [3, True],
             "source": [3], "note": [1]}, optional=("verdict", "score", "answer", "source")))
def test_answers_lines(obj: dict[str, Any]) -> None:
    from ragauge.data.answers import parse_answer_line

    agree("answers", obj, lambda o: parse_answer_line(o, "line"))


@settings(max_examples=400)
@given(near({"v": [1, 1.0], "question": ["q1"], "doc_id": ["d1"], "action": ["grade", "skip", "undo"],
             "grade": [2, 0, 0.5], "annotator": ["ana"],
             "time": ["2026-11-03T09:12:04.518Z", "2026-11-03T09:12:04+02:00", "2026-11-03T09:12:04"]},
            {"v": [2, 0, "1", None], "question": ["", 3], "doc_id": ["", None], "action": ["GRADE", "", 1],
             "grade": ["2", True, 1e10, None], "annotator": ["", 3], "time": ["yesterday", "", 5, "2026-13-45"],
             "note": [1]}, optional=("grade",)))
def test_judgement_records(obj: dict[str, Any]) -> None:
    from ragauge.data.judgements import parse_judgement

    agree("judgements", obj, lambda o: parse_judgement(o, "line"), "ISO 8601")


# --- pool ------------------------------------------------------------------------------------------------

SYSTEMS = {"s1": "retriever", "s2": "run"}
DOCS = ["d1", "d2", "d3"]
BAD_RANKS = [{"s1": 0}, {"s1": 2.5}, {"s1": True}, {"s1": None}, {"zz": 1}, 3, None]
CANDIDATE = near({"doc_id": DOCS, "ranks": st.dictionaries(st.sampled_from(["s1", "s2"]), st.sampled_from([1, 2, 3.0]),
                                                           min_size=1)},
                 {"doc_id": ["", 3], "ranks": [{}, *BAD_RANKS], "grade": [1], "x": [1]})
JUDGED = near({"doc_id": DOCS, "ranks": st.dictionaries(st.sampled_from(["s1", "s2"]), st.sampled_from([1, 2])),
               "grade": [0, 1, 2.5, -1]},
              {"doc_id": ["", None], "ranks": BAD_RANKS, "grade": ["1", None, True, 1e10]})
QUESTION = near(
    {"id": ["q1"], "query": ["a question", ""], "tags": st.lists(st.sampled_from("ab"), unique=True),
     "systems": st.lists(st.sampled_from(["s1", "s2"]), unique=True), "candidates": st.lists(CANDIDATE, max_size=2),
     "judged": st.lists(JUDGED, max_size=2)},
    {"id": ["", 3], "query": [3, None], "tags": [["a", "a"], ["", "a"], "a", None],
     "systems": [["s1", "s1"], [1], "s1", ["zz"]], "candidates": [None, "d1"], "judged": [3], "x": [1]},
    optional=("tags",))
SYSTEM = near({"name": ["s1", "s2", "s3"], "kind": ["retriever", "run"]},
              {"name": ["", 1], "kind": ["index", None], "x": [1]})
HEADER = st.builds(lambda head, extra: {"_pool": head, **extra}, near(
    {"version": [1], "depth": [1, 10, 3.0], "systems": st.lists(SYSTEM, min_size=1, max_size=2), "doc_id": ["rule"],
     "golden": [None, {}, {"path": "g"}], "ragauge_version": ["0.1", None]},
    {"version": [2, "1", None], "depth": [0, 2.5, True], "systems": [[], None], "doc_id": ["", None, 3],
     "golden": ["g", 3], "ragauge_version": ["", 3], "x": [1]}, optional=("doc_id", "golden", "ragauge_version")),
    st.sampled_from([{}, {}, {}, {"x": 1}]))


@settings(max_examples=400)
@given(QUESTION)
def test_pool_question_lines(obj: dict[str, Any]) -> None:
    from ragauge.data.pool import parse_pooled_question

    agree("pool", obj, lambda o: parse_pooled_question(o, SYSTEMS, "line"),
          "not among the pool's systems|appears twice in question")


@settings(max_examples=400)
@given(HEADER)
def test_pool_headers(obj: dict[str, Any]) -> None:
    from ragauge.data.pool import parse_header

    agree("pool", obj, lambda o: parse_header(o, "line"), "names system .* twice")


# --- TOML: ragauge.toml and sweep files ------------------------------------------------------------------

GATE = [  # (the [gate] table's body, or other tables, as TOML; whether ragauge takes it)
    ('[gate]\nmetrics = { "ndcg@10" = 0.02, "recall @ 5" = 0.03 }\ntag_floors = { net = { "mrr" = 0.8 } }\n'
     'critical = ["q1"]\ncritical_k = 10\nfail_if = "drop_and_significant"\nalpha = 0.1\nstrict_power = true\n'
     'correlation = -0.5', True),
    ('[gate]\nmetrics = ["ndcg@10", "mrr"]\nsignificant_only = true', True),
    ("[gate]\ncritical_k = 5.0\n[retriever.http]\nmethod = \"GET\"\n[eval]\ngrades = \"1:3, 2:2,-1:0\"", True),
    ('[other]\nx = 1', True),
    ('[gate]\nmetric = ["ndcg@10"]', False),
    ('[gate]\nmetrics = "ndcg@10"', False),
    ('[gate]\nmetrics = { "ndcg@10" = 1.5 }', False),
    ('[gate]\nmetrics = { "ndcg 10" = 0.02 }', False),
    ('[gate]\nmetrics = { "ndcg@0x" = 0.02 }', False),
    ('[gate]\nmetrics = { "ndcg@10" = true }', False),
    ('[gate]\ntag_floors = { net = 0.8 }', False),
    ('[gate]\ncritical = "q1"', False),
    ('[gate]\ncritical = ["q1", 2]', False),
    ('[gate]\ncritical_k = 0', False),
    ('[gate]\ncritical_k = 2.5', False),
    ('[gate]\nfail_if = "worse"', False),
    ('[gate]\nfail_if = "drop"\nsignificant_only = false', False),
    ('[gate]\nsignificant_only = "yes"', False),
    ('[gate]\nalpha = 1', False),
    ('[gate]\nalpha = 0', False),
    ('[gate]\ncorrelation = 1', False),
    ('[gate]\ncorrelation = -1', True),
    ('[gate]\nstrict_power = 1', False),
    ('gate = 3', False),
    ('[eval]\ngrades = "1:3,2"', False),
    ('[eval]\ngrades = 3', False),
    ('[mlflow]\nexperiment = "retrieval"\ntracking_uri = "sqlite:///mlflow.db"\nrun_name = "nightly"', True),
    ('[mlflow]', True),
    ('[mlflow]\nexperiment = ""', False),
    ('[mlflow]\nexperiment = " "', False),
    ('[mlflow]\nexperiment = 3', False),
    ('[mlflow]\ntracking-uri = "sqlite:///mlflow.db"', False),
    ('mlflow = true', False),
]


@pytest.mark.parametrize(("text", "taken"), GATE)
def test_ragauge_toml(tmp_path: Path, text: str, taken: bool) -> None:
    from ragauge.config import eval_grades, mlflow_settings
    from ragauge.evaluation.grades import parse_grades
    from ragauge.gating.config import load_rules

    path = tmp_path / "ragauge.toml"
    path.write_text(text + "\n", encoding="utf-8")

    def read(_: object) -> None:
        load_rules(path)
        parse_grades(eval_grades(path))
        mlflow_settings(path)

    data = tomllib.loads(path.read_text(encoding="utf-8"))
    agree("config", data, read)
    assert Draft202012Validator(schemas.schema("config")).is_valid(data) == taken


BM25 = {"retriever": "bm25"}
SWEEP: list[tuple[dict[str, Any], bool]] = [
    ({"config": [BM25]}, True),
    ({"sweep": {"metrics": "ndcg@10, mrr,", "fetch": 20, "alpha": 0.1, "concurrency": 2, "budget": 90, "factor": 2,
                "tokenizer": "hf:tok.json", "primary": "mrr", "reference": "bm25"},
      "config": [{**BM25, "name": "bm25"}, {"retriever": "hybrid", "embedder": "hash", "fusion": [
          {"fusion": "rrf", "rrf_k": 60}, {"fusion": "weighted", "weight": 0.3}]}]}, True),
    ({"sweep": {"k": [5, 10]}, "config": [{**BM25, "k1": [0.9, 1.2], "b": 0.4, "title": False, "chunking": [
        {"chunk_size": 0}, {"chunk_size": 200.0, "chunk_overlap": 20}]}]}, True),
    ({"sweep": {"metrics": ["mrr"], "k": "ignored with metrics"}, "config": [BM25]}, True),
    ({"sweep": {"k": 10}, "config": [{"retriever": "dense", "embedder": "hash", "chunk_unit": "words"}]}, True),
    ({"config": []}, False),
    ({}, False),
    ({"config": [BM25], "extra": {}}, False),
    ({"sweep": {"fecth": 3}, "config": [BM25]}, False),
    ({"sweep": {"metrics": []}, "config": [BM25]}, False),
    ({"sweep": {"metrics": " , "}, "config": [BM25]}, False),
    ({"sweep": {"metrics": "ndcg 10"}, "config": [BM25]}, False),
    ({"sweep": {"k": 0}, "config": [BM25]}, False),
    ({"sweep": {"k": []}, "config": [BM25]}, False),
    ({"sweep": {"fetch": 0}, "config": [BM25]}, False),
    ({"sweep": {"alpha": 1.0}, "config": [BM25]}, False),
    ({"sweep": {"factor": 1}, "config": [BM25]}, False),
    ({"sweep": {"tokenizer": "hf:"}, "config": [BM25]}, False),
    ({"sweep": {"tokenizer": "bpe"}, "config": [BM25]}, False),
    ({"config": [{"retriever": "bm26"}]}, False),
    ({"config": [{**BM25, "name": " "}]}, False),
    ({"config": [{**BM25, "embedder": "hash"}]}, False),
    ({"config": [{**BM25, "k1": "high"}]}, False),
    ({"config": [{**BM25, "k1": -1}]}, False),
    ({"config": [{**BM25, "b": 1.5}]}, False),
    ({"config": [{**BM25, "b": True}]}, False),
    ({"config": [{**BM25, "chunk_size": 2.5}]}, False),
    ({"config": [{**BM25, "title": 1}]}, False),
    ({"config": [{**BM25, "k1": []}]}, False),
    ({"config": [{**BM25, "k1": [0.9, {"b": 0.4}]}]}, False),
    ({"config": [{**BM25, "k1": {"b": 0.4}}]}, False),
    ({"config": [{**BM25, "chunking": 3}]}, False),
    ({"config": [{**BM25, "chunking": [{"chunk_size": 10, "fusion": "rrf"}]}]}, False),
    ({"config": [{**BM25, "chunking": [{"chunk_size": [10, 20]}]}]}, False),
]


@pytest.mark.parametrize(("data", "taken"), SWEEP)
def test_sweep_files(data: dict[str, Any], taken: bool) -> None:
    from ragauge.experiments.grid import plan_from_dict

    agree("sweep-config", data, plan_from_dict)
    assert Draft202012Validator(schemas.schema("sweep-config")).is_valid(data) == taken


LOOSER = [  # (schema, record, what only ragauge checks)
    ("sweep-config", {"sweep": {"reference": "zz"}, "config": [BM25]}, "not a configuration of the sweep"),
    ("sweep-config", {"sweep": {"metrics": ["mrr"], "primary": "ndcg@10"}, "config": [BM25]}, "not among the metrics"),
    ("sweep-config", {"sweep": {"metrics": "ndgc@10"}, "config": [BM25]}, "unknown metric"),
    ("sweep-config", {"config": [{**BM25, "embedder": "hash", "retriever": "dense"}] * 2}, "two configurations"),
    ("sweep-config", {"config": [{**BM25, "k1": 0.9, "group": [{"k1": 1.2}]}]}, "set twice in one combination"),
    ("sweep-config", {"config": [{"retriever": "dense", "embedder": "nonsense"}]}, "embedder"),
    ("sweep-config", {"sweep": {"k": 10.0}, "config": [BM25]}, "a cutoff or a list"),
]


@pytest.mark.parametrize(("name", "record", "reason"), LOOSER)
def test_what_only_ragauge_checks_is_said_by_the_schema_and_refused_by_ragauge(name: str, record: dict[str, Any],
                                                                              reason: str) -> None:
    from ragauge.experiments.grid import plan_from_dict

    assert Draft202012Validator(schemas.schema(name)).is_valid(record)
    with pytest.raises(InputError, match=reason):
        plan_from_dict(record)


# --- JSON documents: a baseline and a result ---------------------------------------------------------------

EXAMPLES = Path(__file__).parents[2] / "examples"


def _baseline() -> dict[str, Any]:
    return json.loads((EXAMPLES / "scifact" / "baseline.json").read_text("utf-8"))


def _auto() -> dict[str, Any]:
    """A prediction-powered baseline's ``auto_labels`` (``gating.baseline.make_record``)."""
    return {"assessor": "minilm@8199be6f699a", "identity": "sha256:" + "0" * 64, "golden": None, "path": "auto.jsonl",
            "unassessed": 0, "unlabelled": ["2"], "automatic": {"1": {"mrr": 0.5}, "2": {"mrr": 0.25}}}


@cache
def _result_text() -> str:
    import ragauge

    helpdesk = EXAMPLES / "helpdesk"
    result = ragauge.evaluate_run(ragauge.load_golden(helpdesk / "golden.jsonl"), helpdesk / "bm25.run.jsonl", k=5)
    return json.dumps(result.to_dict())


DOCUMENTS: list[tuple[str, Callable[[dict[str, Any]], None], bool]] = [  # (schema, spoil a record, still taken)
    ("baseline", lambda d: None, True),
    ("baseline", lambda d: d.pop("golden_hash"), False),
    ("baseline", lambda d: d.update(golden_hash=3), False),
    ("baseline", lambda d: d.update(contract=[]), False),
    ("baseline", lambda d: d["metrics"].update({"mrr": 1.5}), False),
    ("baseline", lambda d: d["metrics"].update({"mrr": None}), False),
    ("baseline", lambda d: d["queries"]["1"].update(first_relevant_rank=0), False),
    ("baseline", lambda d: d["queries"]["1"].update(first_relevant_rank=None), True),
    ("baseline", lambda d: d.update(by_tag={"t": {"n": 0, "mrr": 0.5}}), False),
    ("baseline", lambda d: d.update(by_tag={"t": {"n": 3, "mrr": 0.5}}), True),
    ("baseline", lambda d: d.update(queries=[]), False),
    ("baseline", lambda d: d.update(ragauge_baseline=2), False),
    ("baseline", lambda d: d.update(auto_labels=_auto()), True),
    ("baseline", lambda d: d.update(auto_labels={**_auto(), "automatic": {"1": {"mrr": 1.5}}}), False),
    ("baseline", lambda d: d.update(auto_labels={k: v for k, v in _auto().items() if k != "identity"}), False),
    ("baseline", lambda d: d.update(auto_labels={**_auto(), "unlabelled": "q1"}), False),
    ("baseline", lambda d: d.update(auto_labels={**_auto(), "automatic": {"1": []}}), False),
    ("result", lambda d: None, True),
    ("result", lambda d: d.update(ragauge_result=2), False),
    ("result", lambda d: d.pop("meta"), False),
    ("result", lambda d: d.update(metrics=["mrr", 3]), False),
    ("result", lambda d: d["summary"].update(mrr=None), True),
    ("result", lambda d: d["summary"].update(mrr="0.5"), False),
    ("result", lambda d: d["queries"][0].update(mrr=None), False),
    ("result", lambda d: d["queries"][0].pop("id"), False),
    ("result", lambda d: d["queries"][0]["top"][0].pop("rank"), False),
    ("result", lambda d: d.update(by_source={"real": {"n": 2, "mrr": 0.5}}), True),
    ("result", lambda d: d.update(by_source={"real": {"n": 2.5}}), False),
    ("result", lambda d: d.update(by_source={"fake": {"n": 2}}), False),
]


@pytest.mark.parametrize(("name", "spoil", "taken"), DOCUMENTS)
def test_baselines_and_results(tmp_path: Path, name: str, spoil: Callable[[dict[str, Any]], None],
                               taken: bool) -> None:
    from ragauge.evaluation.load import read_result
    from ragauge.gating.baseline import Baseline

    record = _baseline() if name == "baseline" else json.loads(_result_text())
    spoil(record)
    saved = tmp_path / "result.json"
    saved.write_text(json.dumps(record), encoding="utf-8")
    agree(name, record, Baseline.from_dict if name == "baseline" else lambda _: read_result(saved))
    assert Draft202012Validator(schemas.schema(name)).is_valid(record) == taken


def _header(**head: Any) -> dict[str, Any]:
    return {"_pool": {"version": 1, "depth": 5, "systems": [{"name": "s1", "kind": "run"}], **head}}


JUDGEMENT = {"question": "q1", "doc_id": "d1", "action": "skip", "annotator": "ana", "time": "2026-11-03T09:12:04Z"}
LAXER: list[tuple[str, dict[str, Any], str]] = [  # (schema, a record its reader takes, why)
    ("judgements", {"v": True, **JUDGEMENT}, "Python's True == 1: a boolean version reads as 1"),
    ("pool", _header(golden=False), "a falsy golden (false, 0, \"\", []) reads as none"),
    ("baseline", {**_baseline(), "ragauge_baseline": True}, "Python's True == 1"),
    ("baseline", {**_baseline(), "rules": "strict"}, "rules that are not an object are ignored"),
]


@pytest.mark.parametrize(("name", "record", "why"), LAXER)
def test_where_a_reader_takes_more_than_its_schema_says(name: str, record: dict[str, Any], why: str) -> None:
    """The schemas say what ragauge writes; these readers also take a few values by Python's
    truthiness. When a reader is made strict, its case goes from this list."""
    from ragauge.data.judgements import parse_judgement
    from ragauge.data.pool import parse_header
    from ragauge.gating.baseline import Baseline

    read = {"judgements": lambda o: parse_judgement(o, "line"), "pool": lambda o: parse_header(o, "line"),
            "baseline": Baseline.from_dict}[name]
    read(record)
    assert not Draft202012Validator(schemas.schema(name)).is_valid(record), why
