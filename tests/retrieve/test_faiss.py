"""``faiss:`` and ``ragauge index faiss`` against real FAISS indexes written by the test."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ragauge.errors import InputError
from ragauge.retrieve.corpus import Chunking
from ragauge.retrieve.registry import open_retriever

from .store_checks import SECTIONS, Exact, assert_scores_like_exact, library, questions, sections

faiss = library("faiss", "faiss")

from ragauge.retrieve.stores.faiss import load_faiss  # noqa: E402


@pytest.fixture(scope="module")
def flat(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("faiss") / "chunks.faiss"
    result = load_faiss(path, sections(), "hash")
    assert (result.rows, result.documents, result.skipped, result.dim) == (501, 501, 0, 512)
    assert result.spec == f"faiss:{path}" and path.with_suffix(".ids.jsonl").exists()
    return path


def test_top10_is_the_exact_cosine_ranking(flat: Path) -> None:
    retriever = open_retriever(f"faiss:{flat}")
    exact = Exact(sections())
    assert retriever.describe()["embedder"] == "hash"  # recorded by the loader, not asked for
    assert retriever.describe()["index"] == "IndexFlatIP (exact)"
    for question in questions():
        exact.check(retriever, question)
    assert retriever.search("the of and", 10).hits == ()  # nothing to compare: no hits, no NaN


def test_the_golden_set_scores_as_the_exact_ranking_does(flat: Path) -> None:
    assert_scores_like_exact(f"faiss:{flat}", Exact(sections()))


def test_concurrent_searches_agree_with_serial_ones(flat: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    retriever = open_retriever(f"faiss:{flat}")
    assert not hasattr(retriever, "max_concurrency")  # FAISS CPU indexes take concurrent searches
    serial = [retriever.search(q, 10).hits for q in questions()]
    with ThreadPoolExecutor(4) as workers:
        assert list(workers.map(lambda q: retriever.search(q, 10).hits, questions())) == serial


def test_documents_and_fingerprint(flat: Path, tmp_path: Path) -> None:
    retriever = open_retriever(f"faiss:{flat}")
    assert retriever.documents() == {p.doc_id for p in sections()}
    assert retriever.fingerprint() == open_retriever(f"faiss:{flat}").fingerprint()
    fewer = load_faiss(tmp_path / "fewer.faiss", sections()[:-1], "hash")
    assert open_retriever(fewer.spec).fingerprint() != retriever.fingerprint()


def test_a_users_own_idmap_l2_index_with_a_json_id_list(tmp_path: Path) -> None:
    """An IndexIDMap over IndexFlatL2 with arbitrary ids, no record: ?embedder= names the embedder,
    scores are negated squared distances, and for unit vectors the ranking is the cosine one."""
    passages = sections(Chunking(40, 10))
    exact = Exact(passages)
    index = faiss.IndexIDMap(faiss.IndexFlatL2(512))  # type: ignore[attr-defined]
    numbers = np.arange(len(exact.passages), dtype=np.int64) * 7 + 1000
    index.add_with_ids(exact.vectors, numbers)
    faiss.write_index(index, str(tmp_path / "mine.index"))  # type: ignore[attr-defined]
    entries = [{"doc_id": p.doc_id, "chunk_id": p.chunk_id, "faiss_id": int(n)}
               for p, n in zip(exact.passages, numbers)]
    (tmp_path / "ids.json").write_text(json.dumps(list(reversed(entries))))
    retriever = open_retriever(f"faiss:{tmp_path / 'mine.index'}?ids={tmp_path / 'ids.json'}&embedder=hash")
    assert retriever.describe()["metric"] == "L2" and retriever.describe()["index"] == "IndexIDMap (exact)"
    for question in questions()[:10]:
        hits = retriever.search(question, 10).hits
        top = exact.top(question, 10)
        assert [h.score for h in hits] == pytest.approx([-(2 - 2 * s) for _, s in top], abs=1e-4)
        assert all(h.chunk_id and h.chunk_id.startswith(h.doc_id + "#") for h in hits)
    (tmp_path / "plain.json").write_text(json.dumps([p.doc_id for p in exact.passages]))
    with pytest.raises(InputError, match="does not hold the ids the index holds"):
        open_retriever(f"faiss:{tmp_path / 'mine.index'}?ids={tmp_path / 'plain.json'}&embedder=hash")


def test_clear_errors_for_bad_specs_and_mismatches(flat: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="index file not found") as missing:
        open_retriever(f"faiss:{tmp_path / 'nope.faiss'}")
    assert "ragauge index faiss" in str(missing.value)
    (tmp_path / "junk.faiss").write_bytes(b"not an index at all")
    with pytest.raises(InputError, match="not a FAISS index"):
        open_retriever(f"faiss:{tmp_path / 'junk.faiss'}")
    with pytest.raises(InputError, match=r"id map \(\?ids=\) not found"):
        open_retriever(f"faiss:{flat}?ids={tmp_path / 'none.jsonl'}")
    short = tmp_path / "short.jsonl"
    short.write_text("".join(json.dumps({"doc_id": f"d{i}"}) + "\n" for i in range(3)))
    with pytest.raises(InputError, match="holds 501 vectors but the id map"):
        open_retriever(f"faiss:{flat}?ids={short}")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"doc_id": "a"}\n{"title": "no id"}\n')
    with pytest.raises(InputError, match="bad.jsonl:2"):
        open_retriever(f"faiss:{flat}?ids={bad}")
    with pytest.raises(InputError, match="unknown faiss option.*table"):
        open_retriever(f"faiss:{flat}?table=x")
    with pytest.raises(InputError, match="local path"):
        open_retriever("faiss:http://example.com/index.faiss")
    with pytest.raises(InputError, match="indexed with the 'hash' embedder, the spec asks for 'hash-256'"):
        open_retriever(f"faiss:{flat}?embedder=hash-256")
    unrecorded = tmp_path / "unrecorded.faiss"
    faiss.write_index(faiss.read_index(str(flat)), str(unrecorded))  # type: ignore[attr-defined]
    lines = flat.with_suffix(".ids.jsonl").read_text().splitlines()[1:]  # no record line
    unrecorded.with_suffix(".ids.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="holds 512-dimension vectors but the 'hash-256' embedder makes 256"):
        open_retriever(f"faiss:{unrecorded}?embedder=hash-256")
    assert open_retriever(f"faiss:{unrecorded}?embedder=hash").describe()["embedder"] == "hash"


def test_index_command_end_to_end(tmp_path: Path) -> None:
    from ragauge.cli.main import cli

    target = tmp_path / "out" / "chunks.faiss"
    args = ["index", "faiss", str(SECTIONS), str(target), "--embedder", "hash", "--chunk-size", "40",
            "--chunk-overlap", "10", "--ids", str(tmp_path / "map.jsonl")]
    runner = CliRunner()
    first = runner.invoke(cli, args)
    assert first.exit_code == 0, first.output
    rows = int(first.stdout.split("loaded ")[1].split()[0])
    assert rows == len(sections(Chunking(40, 10))) and "(501 documents" in first.stdout
    spec = first.stdout.split("--retriever '")[1].split("'")[0]
    assert spec == f"faiss:{target}?ids={tmp_path / 'map.jsonl'}"
    again = runner.invoke(cli, args)
    assert again.exit_code == 2 and "already exists" in again.output and "--recreate" in again.output
    hnsw = runner.invoke(cli, [*args, "--recreate", "--index", "hnsw"])
    assert hnsw.exit_code == 0 and "IndexHNSWFlat (approximate)" in hnsw.stdout
    retriever = open_retriever(spec)
    assert retriever.describe()["index"] == "IndexHNSWFlat (approximate)"
    hits = retriever.search("VPN-809 certificate expired when connecting", 20).hits
    exact = Exact(sections(Chunking(40, 10)))
    scores = exact.scores("VPN-809 certificate expired when connecting")
    assert len(hits) == 20 and all(h.score == pytest.approx(scores[exact.key[(h.doc_id, h.chunk_id)]], abs=1e-5)
                                   for h in hits)
    top = {(p.doc_id, p.chunk_id) for p, _ in exact.top("VPN-809 certificate expired when connecting", 10)}
    assert len(top & {(h.doc_id, h.chunk_id) for h in hits[:10]}) >= 8  # approximate, but close
