"""What the vector-store adapters share, without any store library: specs, the embedder record,
the embedder choice, install hints for a missing library, passages."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ragauge.errors import InputError, MissingExtra
from ragauge.retrieve.base import RetrieverOptions
from ragauge.retrieve.corpus import Passage
from ragauge.retrieve.registry import open_retriever
from ragauge.retrieve.stores.common import choose_embedder, parse_target, read_passages, read_record

DEFAULTS = {"collection": "chunks", "doc_id": "doc_id", "embedder": "", "api_key": ""}


def _parse(spec: str, options: RetrieverOptions | None = None, servers: bool = True) -> object:
    return parse_target(spec, "qdrant", DEFAULTS, options, required=("collection",), example="qdrant:./q",
                        servers=servers)


def test_options_come_from_config_then_extra_then_the_spec() -> None:
    options = RetrieverOptions(config={"qdrant": {"collection": "from-config", "doc_id": "source"}},
                               extra={"collection": "from-extra"})
    target = parse_target("qdrant:./q?embedder=hash", "qdrant", DEFAULTS, options, example="x")
    assert dict(target.options) == {"collection": "from-extra", "doc_id": "source", "embedder": "hash",
                                    "api_key": ""}
    assert target.given == {"collection", "doc_id", "embedder"} and target.location == "./q"
    spec = parse_target("qdrant:./q?collection=from-spec", "qdrant", DEFAULTS, options, example="x")
    assert spec.options["collection"] == "from-spec"
    bare = parse_target("./q", "qdrant", DEFAULTS, example="x")  # a bare location, as load_* take it
    assert bare.location == "./q" and not bare.server


def test_secrets_in_a_url_are_found_and_never_shown() -> None:
    target = parse_target("qdrant:https://me:pa55-word@q.example.com:6333?collection=c&api_key=k3y-s3cret", "qdrant",
                          DEFAULTS, example="x", servers=True)
    assert target.server and target.options["api_key"] == "k3y-s3cret"
    assert target.location == "https://me:pa55-word@q.example.com:6333"
    for shown in (target.shown, target.shown_spec, target.who, target.hide("refused: k3y-s3cret and pa55-word")):
        assert "k3y-s3cret" not in shown and "pa55-word" not in shown
    assert target.shown_spec == "https://me:***@q.example.com:6333?collection=c&api_key=***"


def test_bad_specs_are_clear() -> None:
    with pytest.raises(InputError, match="needs a path or an http"):
        parse_target("qdrant:?collection=c", "qdrant", DEFAULTS, example="qdrant:./q", servers=True)
    with pytest.raises(InputError, match="unknown qdrant option\\(s\\) colection") as unknown:
        parse_target("qdrant:./q?colection=c&api_key=s3cret-value", "qdrant", DEFAULTS, example="x")
    assert "known: api_key, collection, doc_id, embedder" in str(unknown.value)
    assert "s3cret-value" not in str(unknown.value)
    with pytest.raises(InputError, match="must not be empty"):
        parse_target("qdrant:./q?collection=", "qdrant", DEFAULTS, required=("collection",), example="x")
    with pytest.raises(InputError, match="reads a local path, got 'https://x:\\*\\*\\*@h/db'"):
        parse_target("faiss:https://x:pw-long@h/db", "faiss", {}, example="faiss:i.faiss")


def test_the_record_reads_back_and_anything_else_is_no_record() -> None:
    assert read_record({"embedder": "hash", "dim": 512, "format": 1}) == ("hash", 512)
    assert read_record('{"embedder": "minilm", "dim": 384}') == ("minilm", 384)
    assert read_record(b'{"embedder": "hash-64", "dim": 64}') == ("hash-64", 64)
    for junk in (None, "", "not json", "[1, 2]", {"embedder": 3, "dim": True}, {"dim": -4}, 7):
        assert read_record(junk)[0] is None and read_record(junk)[1] is None


def test_the_embedder_is_the_spec_s_else_the_recorded_one_and_must_fit_the_vectors() -> None:
    target = parse_target("./q", "qdrant", DEFAULTS, example="x")
    embedder, name = choose_embedder(target, "hash", 512, "collection 'c'")
    assert (name, embedder.dim) == ("hash", 512)
    asked = parse_target("./q?embedder=HASH-512", "qdrant", DEFAULTS, example="x")
    assert choose_embedder(asked, "hash", 512, "collection 'c'")[1] == "hash"  # names fold to one
    other = parse_target("./q?embedder=hash-64", "qdrant", DEFAULTS, example="x")
    with pytest.raises(InputError, match="indexed with the 'hash' embedder, the spec asks for 'hash-64'") as clash:
        choose_embedder(other, "hash", 512, "collection 'c'")
    assert "embedder=hash" in (clash.value.hint or "")
    with pytest.raises(InputError, match="holds 300-dimension vectors but the 'hash-64' embedder makes 64"):
        choose_embedder(other, None, 300, "collection 'c'")
    assert choose_embedder(other, None, None, "collection 'c'")[0].dim == 64  # dimension unknown: no check


@pytest.mark.parametrize(("scheme", "module", "extra"), [
    ("qdrant", "qdrant_client", "qdrant"), ("chroma", "chromadb", "chroma"), ("lancedb", "lancedb", "lancedb"),
    ("faiss", "faiss", "faiss"), ("sqlite-vec", "apsw", "sqlite-vec"), ("sqlite-vec", "sqlite_vec", "sqlite-vec")])
def test_a_missing_library_is_an_install_hint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, scheme: str,
                                              module: str, extra: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    (tmp_path / "store").mkdir()
    with pytest.raises(MissingExtra, match=rf"pip install 'ragauge\[{extra}\]'"):
        open_retriever(f"{scheme}:{tmp_path / 'store'}")


def test_every_store_is_a_known_scheme() -> None:
    with pytest.raises(InputError) as unknown:
        open_retriever("weaviate:http://localhost:8080")
    for scheme in ("qdrant:", "chroma:", "lancedb:", "faiss:", "sqlite-vec:"):
        assert scheme in (unknown.value.hint or "")


def test_passages_must_have_distinct_ids() -> None:
    twice = [Passage("a", None, "", "x y"), Passage("b", "a", "", "z")]
    with pytest.raises(InputError, match="two passages share the id 'a'"):
        read_passages(twice)
    from ragauge.retrieve.corpus import Chunking

    with pytest.raises(InputError, match="chunking applies to a corpus path"):
        read_passages([Passage("a", None, "", "x")], Chunking(10))
