"""Scoring a run read block by block (``RunStream``) gives the result of reading it whole: every
number, row, warning and error. Tiny blocks put every boundary through the streaming path."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.errors import InputError
from ragauge.evaluation.evaluate import evaluate_run
from ragauge.formats import blocks
from ragauge.formats.runs import RunStream, read_run, run_source

DOCS = [f"d{j}" for j in range(30)]


def golden_lines(rng: random.Random, ids: list[str]) -> list[dict[str, Any]]:
    out = []
    for q in ids:
        relevant = {d: rng.choice([1, 1, 2, 0]) for d in rng.sample(DOCS, rng.randint(0, 3))}
        item: dict[str, Any] = {"id": q, "query": f"about {q}", "relevant": relevant, "tags": [rng.choice("ab")]}
        if rng.random() < 0.2:
            item["source"] = "synthetic"
        out.append(item)
    return out


def jsonl_run(rng: random.Random, ids: list[str], *, chunks: bool) -> str:
    lines = [json.dumps({"_meta": {"retriever": "test"}})]
    for q in ids:
        if rng.random() < 0.15:
            continue  # missing from the run
        hits = []
        for _ in range(rng.randint(0, 14)):
            doc = rng.choice(DOCS)  # repeats: folded hits, crowding
            hit: dict[str, Any] = {"chunk_id": f"{doc}#{rng.randint(0, 3)}"} if chunks else {"doc_id": doc}
            hit["score"] = rng.choice([1.0, 0.5, 0.25])
            hit["length"] = rng.randint(1, 40)
            hits.append(hit)
        line: dict[str, Any] = {"id": q, "hits": hits, "latency_ms": rng.randint(1, 50)}
        if rng.random() < 0.1:
            line["error"] = "timeout"
        lines.append(json.dumps(line))
    lines.append(json.dumps({"id": "not-in-golden", "hits": ["d1"]}))
    return "\n".join(lines) + "\n"


def trec_run(rng: random.Random, ids: list[str], *, scatter: bool) -> str:
    lines = []
    for q in ids + ["not-in-golden"]:
        for rank, doc in enumerate(rng.sample(DOCS, rng.randint(1, 12)), 1):
            lines.append(f"{q} Q0 {doc} {rank} {rng.choice([3.0, 2.0, 2.0, 1.0])} run")
    if scatter:
        rng.shuffle(lines)
    return "\n".join(lines) + "\n"


def outcome(golden: Path, run: object, **options: Any) -> str:
    """The result as canonical JSON (NaN equals NaN there), or the error's text."""
    try:
        return json.dumps(evaluate_run(golden, run, **options).to_dict(), sort_keys=True)  # type: ignore[arg-type]
    except InputError as exc:
        return f"InputError: {exc}"


OPTION_SETS: list[dict[str, Any]] = [
    {"k": [1, 3]},
    {"metrics": "recall@5,mrr,ndcg@10,map,judged@5", "fetch": 6, "on_error": "skip"},
    {"k": 5, "unjudged": "unknown", "mix_synthetic": True},
    {"metrics": "hit@30t,recall@60t,hit@3", "known_documents": set(DOCS[:25])},
]


def random_case(tmp: Path, seed: int, fmt: str, option: int, *, scatter: bool,
                most: int) -> tuple[Path, Path, dict[str, Any]]:
    """A random golden set of 1 to ``most`` questions and a run of format ``fmt`` written to
    ``tmp``, and the evaluation options ``OPTION_SETS[option]`` (token budgets left out of a TREC run)."""
    rng = random.Random(seed)
    ids = [f"q{i}" for i in range(rng.randint(1, most))]
    golden = tmp / "golden.jsonl"
    golden.write_text("".join(json.dumps(line) + "\n" for line in golden_lines(rng, ids)))
    run = tmp / f"run.{fmt}"
    run.write_text(jsonl_run(rng, ids, chunks=False) if fmt == "jsonl" else trec_run(rng, ids, scatter=scatter))
    options = OPTION_SETS[option]
    if fmt == "trec" and "hit@30t" in str(options.get("metrics")):
        options = {**options, "metrics": "hit@3,recall@3"}  # a TREC run has no hit lengths
    return golden, run, options


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), fmt=st.sampled_from(["jsonl", "trec"]), scatter=st.booleans(),
       block=st.sampled_from([1, 50, 400, 1 << 20]), option=st.sampled_from(range(len(OPTION_SETS))))
def test_streamed_result_equals_whole(tmp_path_factory: pytest.TempPathFactory, seed: int, fmt: str, scatter: bool,
                                      block: int, option: int) -> None:
    golden, run, options = random_case(tmp_path_factory.mktemp("eval"), seed, fmt, option, scatter=scatter, most=12)
    whole = outcome(golden, read_run(run), **options)
    streamed = outcome(golden, RunStream(run, block_bytes=block, block_hits=max(1, block // 40)), **options)
    assert streamed == whole


@pytest.mark.parametrize("scatter", [False, True])
@pytest.mark.parametrize("block", [1, 200, 1 << 20])
def test_trec_blocks_carry_their_documents_fingerprints(tmp_path: Path, scatter: bool, block: int) -> None:
    """A TREC block read ahead holds ``hash64`` of its documents in its own row order (also when its
    rows were regrouped), so scoring need not make them; a run read whole holds none."""
    from ragauge.core.arrow import hash64

    rng = random.Random(7)
    run = tmp_path / "run.trec"
    run.write_text(trec_run(rng, [f"q{i}" for i in range(15)], scatter=scatter))
    seen = 0
    for part in RunStream(run, block_bytes=block).blocks():
        assert part.fingerprints is not None
        assert part.fingerprints.tolist() == hash64(part.doc_id).tolist()
        seen += len(part.doc_id)
    assert seen >= len(run.read_text().splitlines())  # every row (a scattered query's twice)
    assert read_run(run).fingerprints is None


@pytest.mark.parametrize("fmt", ["jsonl", "trec"])
@pytest.mark.parametrize("block", [1, 60, 1 << 20])
def test_chunk_ids_and_zero_explanations(tmp_path: Path, fmt: str, block: int) -> None:
    """The evidence explain_zeros weighs is kept small when streamed, with the same warnings."""
    rng = random.Random(block)
    ids = [f"q{i}" for i in range(6)]
    golden = tmp_path / "golden.jsonl"
    golden.write_text("".join(json.dumps({"id": q, "query": q, "relevant": ["zz"]}) + "\n" for q in ids))
    run = tmp_path / f"run.{fmt}"
    if fmt == "jsonl":
        run.write_text(jsonl_run(rng, ids, chunks=True))
    else:
        run.write_text("".join(f"{q} Q0 d{i}#{i} {i} {10 - i} r\n" for q in ids for i in range(5)))
    for options in ({"doc_id_sep": "#"}, {"doc_id_sep": "|"}, {"doc_id_pattern": r"^(d\d+)#"}, {}):
        whole = outcome(golden, read_run(run), **options)
        streamed = outcome(golden, RunStream(run, block_bytes=block, block_hits=2), **options)
        assert streamed == whole
        assert "NOTE: " in whole or (not options and whole.startswith("InputError: "))


@pytest.mark.parametrize(("golden_text", "run_text"), [
    ('{"id": "a", "query": "x", "relevant": ["d1"]}\n', '{"id": "b", "hits": ["d1"]}\n'),  # no shared id
    ('{"id": "a", "query": "x", "relevant": ["d1"]}\n', ""),  # no question
    ('{"id": "a", "query": "x", "relevant": ["d1"]}\n', '{"id": "a", "hits": [{"chunk_id": "c1"}]}\n'),  # no doc id
    ('{"id": "a", "query": "x", "relevant": ["d1"]}\n', '{"id": "a", "hits": ["d1"]}\n{"id": "a", "hits": []}\n'),
    ('{"id": "a", "query": "x", "relevant": ["d1"]}\n', '{"id": "a", "hits": ["d1"]}\n{"_meta": {}}\n'),
    ('{"id": "a", "query": "x", "relevant": ["d1"]}\n', '{"id": "a", "error": "down", "hits": []}\n'),
])
def test_errors_are_those_of_reading_whole(tmp_path: Path, golden_text: str, run_text: str) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text(golden_text)
    run = tmp_path / "run.jsonl"
    run.write_text(run_text)
    whole = outcome(golden, run)  # a small file: read whole
    assert whole.startswith("InputError: ")
    assert outcome(golden, RunStream(run, block_hits=1)) == whole


def test_a_large_run_file_streams_on_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text('{"id": "1", "query": "x", "relevant": ["b"]}\n')
    run = tmp_path / "run.trec"
    run.write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n")
    assert not isinstance(run_source(run), RunStream)
    whole = outcome(golden, run)
    monkeypatch.setattr(blocks, "STREAM_BYTES", 10)
    assert run_source(run, "trec") == RunStream(run, "trec")
    assert outcome(golden, run) == whole
    assert json.loads(whole)["summary"]["mrr"] == 0.5


@pytest.mark.parametrize("run_text", [
    "z Q0 d 1 1.0 x\ny Q0 d 1 1.0 x\nz Q0 e 2 0.5 x\n",  # scattered: a run read whole lists its queries sorted
    "z Q0 d 1 1.0 x\nz Q0 e 2 3.0 x\ny Q0 d 1 1.0 x\n",  # scores out of order: sorted too
    "z Q0 d 1 1.0 x\ny Q0 d 1 1.0 x\nw Q0 d 1 1.0 x\n",  # in order: listed as written
])
@pytest.mark.parametrize("block", [1, 20, 1 << 20])
def test_trec_queries_are_listed_in_the_order_of_reading_whole(tmp_path: Path, run_text: str, block: int) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text('{"id": "a", "query": "x", "relevant": ["d"]}\n')
    run = tmp_path / "run.trec"
    run.write_text(run_text)
    whole = outcome(golden, run)
    assert whole.startswith("InputError: ") and "run: '" in whole
    assert outcome(golden, RunStream(run, block_bytes=block)) == whole


@pytest.mark.parametrize(("relevant", "returned", "says"), [
    (["d7#setup"], [f"d{i}" for i in range(9, 0, -1)], "sections of returned documents"),
    (["d7"], [f"d{i}#chunk-{i}" for i in range(9, 0, -1)], "look like sections or chunks"),
    (["zz"], [f"d{i}" for i in range(9, 0, -1)], "returned: 'd1', 'd2', 'd3'"),
])
@pytest.mark.parametrize("block", [1, 30, 1 << 20])
def test_nothing_relevant_is_explained_alike(tmp_path: Path, relevant: list[str], returned: list[str], says: str,
                                             block: int) -> None:
    """Read in blocks, only the returned ids explain_zeros can use are kept: the same warnings."""
    golden = tmp_path / "golden.jsonl"
    golden.write_text("".join(json.dumps({"id": f"q{i}", "query": "x", "relevant": relevant}) + "\n" for i in range(4)))
    run = tmp_path / "run.trec"
    run.write_text("".join(f"q{i} Q0 {doc} {r} {20 - r} x\n" for i in range(4) for r, doc in enumerate(returned)))
    whole = outcome(golden, run)
    assert says in whole
    assert outcome(golden, RunStream(run, block_bytes=block)) == whole


@pytest.mark.parametrize("block", [1, 16, 1 << 20])
def test_a_relevant_hit_only_in_part_of_a_scattered_query_explains_alike(tmp_path: Path, block: int) -> None:
    """The first lines of q1 retrieve its relevant document, but gathered with its later lines it
    ranks below the fetch depth: nothing relevant comes back, and the warning says so as read whole."""
    golden = tmp_path / "golden.jsonl"
    golden.write_text('{"id": "q1", "query": "x", "relevant": ["r"]}\n{"id": "q2", "query": "y", "relevant": ["s"]}\n')
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 r 1 1.0 x\nq2 Q0 t 1 2.0 x\nq1 Q0 a 1 5.0 x\nq1 Q0 b 2 4.0 x\nq1 Q0 c 3 3.0 x\n")
    whole = outcome(golden, run, fetch=2)
    assert "no relevant document was retrieved" in whole
    assert outcome(golden, RunStream(run, block_bytes=block), fetch=2) == whole


@pytest.mark.parametrize("block", [1, 60, 300])
def test_span_labels_and_counted_budgets_stream_alike(tmp_path: Path, block: int) -> None:
    """Span matching and tokenizer-counted budgets work per block: the numbers, the chunks shown
    outside their span and the loud notes equal those of reading whole."""
    rng = random.Random(block)
    texts = {d: " ".join(rng.choice(["alpha", "beta", "gamma", "delta"]) for _ in range(40)) for d in DOCS[:6]}
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"_id": d, "text": t}) + "\n" for d, t in texts.items()))
    golden = tmp_path / "golden.jsonl"
    golden.write_text("".join(json.dumps({"id": f"q{i}", "query": "x", "relevant": [
        {"doc": f"d{i % 6}", "start": 40 * (i % 3), "end": 40 * (i % 3) + 30}, f"d{(i + 1) % 6}"]}) + "\n"
        for i in range(12)))
    lines = []
    for i in range(12):
        hits = [{"doc_id": f"d{j}", "chunk_id": f"d{j}#{c}", "start": 50 * c, "end": 50 * c + 60}
                for j, c in ((rng.randrange(6), rng.randrange(4)) for _ in range(8))]
        lines.append(json.dumps({"id": f"q{i}", "hits": hits}))
    run = tmp_path / "run.jsonl"
    run.write_text("\n".join(lines) + "\n")
    options = {"metrics": "hit@1,mrr,recall@40t,judged@3", "corpus": corpus, "tokenizer": "minilm"}
    whole = outcome(golden, read_run(run), **options)
    assert "outside the labelled span" in whole
    assert outcome(golden, RunStream(run, block_bytes=block, block_hits=2), **options) == whole


@pytest.mark.parametrize("fmt", ["jsonl", "trec"])
@pytest.mark.parametrize("block", [1, 200, 1 << 20])
def test_a_begun_stream_reads_as_a_fresh_one(tmp_path: Path, fmt: str, block: int) -> None:
    """RunStream.begin reads the first block ahead: its blocks are a fresh stream's, a second reading
    reads the file again, and the stream it was begun from is left as it was."""
    rng = random.Random(block)
    ids = [f"q{i}" for i in range(15)]
    run = tmp_path / f"run.{fmt}"
    run.write_text(jsonl_run(rng, ids, chunks=False) if fmt == "jsonl" else trec_run(rng, ids, scatter=True))
    stream = RunStream(run, block_bytes=block, block_hits=max(1, block // 40))

    def rows(blocks: Any) -> list[tuple[tuple[str, ...], list[str | None], list[str | None]]]:
        return [(b.queries, b.qid.to_pylist(), b.doc_id.to_pylist()) for b in blocks]

    fresh = rows(stream.blocks())
    started = stream.begin()
    assert rows(started.blocks()) == fresh and rows(started.blocks()) == fresh
    assert stream.begun == [] and started == stream


def test_a_begun_stream_raises_its_error_when_read(tmp_path: Path) -> None:
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 2.0 run\nq1 Q0 d2 2 high run\n")
    started = RunStream(run).begin()  # nothing raised yet
    with pytest.raises(InputError):
        list(started.blocks())
