from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragauge.data.pool import POOL_VERSION, Pool, PoolDocument, PooledQuestion, PoolSystem
from ragauge.errors import InputError
from ragauge.formats.pool import is_pool_file, read_pool, write_pool

HEADER = {"_pool": {"version": 1, "depth": 10, "systems": [{"name": "bm25", "kind": "retriever"},
                                                            {"name": "runs/d.jsonl", "kind": "run"}]}}
LINE = {"id": "q1", "query": "vpn?", "systems": ["bm25", "runs/d.jsonl"],
        "candidates": [{"doc_id": "kb-7", "ranks": {"bm25": 1, "runs/d.jsonl": 2}}],
        "judged": [{"doc_id": "kb-1", "grade": 0, "ranks": {}}]}


def write(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "pool.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


def test_write_then_read_gives_the_same_pool(tmp_path: Path) -> None:
    pool = Pool(5, (PoolSystem("bm25:c.jsonl", "retriever"), PoolSystem("r.trec", "run")), (
        PooledQuestion("q1", "a \u2028 question", (PoolDocument("d2", {"r.trec": 1, "bm25:c.jsonl": 4}),),
                       (PoolDocument("d1", {"bm25:c.jsonl": 9}, 2), PoolDocument("d0", {}, 0.5)),
                       ("bm25:c.jsonl", "r.trec"), ("tag",)),
        PooledQuestion("q2", "", (), (), ()),
    ), "doc id as given by each hit", {"path": "g.jsonl", "hash": "sha256:x", "questions": 2}, "1.0")
    path = tmp_path / "p.jsonl"
    write_pool(pool, path)
    back = read_pool(path)
    assert back.header() == pool.header() and back.source == str(path)
    assert [q.to_dict() for q in back.questions] == [q.to_dict() for q in pool.questions]
    assert [q.line for q in back.questions] == [2, 3]
    assert json.loads(path.read_text(encoding="utf-8").splitlines()[0])["_pool"]["version"] == POOL_VERSION
    assert is_pool_file(path) and not is_pool_file(Path(__file__).parents[2] / "examples/helpdesk/bm25.run.jsonl")


def test_a_valid_hand_written_pool_reads(tmp_path: Path) -> None:
    pool = read_pool(write(tmp_path, HEADER, "", LINE))
    assert pool.depth == 10 and pool.questions[0].line == 3
    assert pool.questions[0].judged[0] == PoolDocument("kb-1", {}, 0)


@pytest.mark.parametrize(("lines", "line", "message"), [
    ([LINE], 1, "first line of a pool file must be"),
    ([{"_pool": {**HEADER["_pool"], "version": 3}}], 1, "unsupported pool format version 3"),
    ([{"_pool": {**HEADER["_pool"], "depth": 0}}], 1, "depth"),
    ([{"_pool": {**HEADER["_pool"], "systems": []}}], 1, "at least one system"),
    ([{"_pool": {**HEADER["_pool"], "systems": [{"name": "a", "kind": "model"}]}}], 1, "kind must be"),
    ([{"_pool": {**HEADER["_pool"], "extra": 1}}], 1, "unknown field(s) 'extra'"),
    ([HEADER, {**LINE, "candidate": []}], 2, "unknown field(s) 'candidate'"),
    ([HEADER, {k: v for k, v in LINE.items() if k != "judged"}], 2, "lacks 'judged'"),
    ([HEADER, {**LINE, "candidates": [{"doc_id": "d", "ranks": {"bm25": 0}}]}], 2, "rank of 'd' by 'bm25'"),
    ([HEADER, {**LINE, "candidates": [{"doc_id": "d", "ranks": {"bm25": 1.5}}]}], 2, "rank of 'd' by 'bm25'"),
    ([HEADER, {**LINE, "candidates": [{"doc_id": "d", "ranks": {"dense": 1}}]}], 2, "not among the pool's systems"),
    ([HEADER, {**LINE, "candidates": [{"doc_id": "d", "ranks": {}}]}], 2, "has no rank"),
    ([HEADER, {**LINE, "candidates": [{"doc_id": "kb-1", "ranks": {"bm25": 1}}]}], 2, "'kb-1' appears twice"),
    ([HEADER, {**LINE, "judged": [{"doc_id": "d", "ranks": {}}]}], 2, "lacks 'grade'"),
    ([HEADER, {**LINE, "judged": [{"doc_id": "d", "grade": "1", "ranks": {}}]}], 2, "grade of 'd'"),
    ([HEADER, {**LINE, "systems": ["x"]}], 2, "'systems' names 'x'"),
    ([HEADER, {**LINE, "id": ""}], 2, "'id' must be a non-empty string"),
    ([HEADER, LINE, LINE], 3, "question 'q1' appears twice (first on line 2)"),
    ([HEADER, LINE, HEADER], 3, "a second '_pool' header"),
    ([HEADER, '{"id": "q2", "query": NaN}'], 2, "NaN is not a finite number"),
])
def test_reading_is_strict_and_names_the_line(tmp_path: Path, lines: list[object], line: int, message: str) -> None:
    path = write(tmp_path, *lines)
    with pytest.raises(InputError) as err:
        read_pool(path)
    assert message in err.value.message and err.value.where == f"{path}:{line}"


def test_an_empty_or_missing_pool_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="empty"):
        read_pool(write(tmp_path))
    with pytest.raises(InputError, match="not found"):
        read_pool(tmp_path / "missing.jsonl")


def test_a_newer_version_says_upgrade(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        read_pool(write(tmp_path, {"_pool": {**HEADER["_pool"], "version": 7}}))
    assert err.value.hint == "upgrade ragauge"
