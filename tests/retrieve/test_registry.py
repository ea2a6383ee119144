"""The adapter registry: one ADAPTER value per module, extras that exist, the index commands built
from it, and a third-party adapter found through a real ``ragauge.retrievers`` entry point."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.errors import InputError
from ragauge.retrieve.adapter import Adapter
from ragauge.retrieve.registry import ADAPTERS, adapter, adapters, open_retriever

ROOT = Path(__file__).parents[2]
HELPDESK = ROOT / "examples" / "helpdesk" / "sections.jsonl"


def test_every_built_in_scheme_has_one_adapter_serving_it() -> None:
    for scheme, module in ADAPTERS.items():
        found = adapter(scheme)
        assert isinstance(found, Adapter)
        assert scheme in found.schemes, (scheme, module)
    names = [a.name for a in adapters()]
    assert len(names) == len(set(names))
    assert {s for a in adapters() for s in a.schemes} == set(ADAPTERS)


def test_every_extra_an_adapter_names_exists() -> None:
    from tests.test_api import _extras

    extras = _extras()
    assert {a.extra for a in adapters() if a.extra} <= extras


def test_every_example_spec_names_its_own_scheme() -> None:
    for found in adapters():
        scheme = found.example.split(":", 1)[0]
        assert scheme in found.schemes or found.example.startswith(("http://", "https://")), found.example


def test_the_index_commands_are_the_adapters_that_can_fill_a_store() -> None:
    result = CliRunner().invoke(cli, ["index", "--help"])
    assert result.exit_code == 0
    for found in adapters():
        assert (f"  {found.name} " in result.output) == (found.index is not None), found.name
    faiss = CliRunner().invoke(cli, ["index", "faiss", "--help"])
    assert "INDEX_FILE" in faiss.output and "--index [auto|hnsw|none]" in faiss.output


def test_index_is_one_call_and_refuses_what_a_store_does_not_take(tmp_path: Path) -> None:
    pytest.importorskip("sqlite_vec")
    result = ragauge.index("sqlite-vec", HELPDESK, str(tmp_path / "chunks.db"), embedder="hash", table="t")
    assert result.spec.startswith("sqlite-vec:") and result.rows > 0
    with pytest.raises(InputError, match="no index option collection"):
        ragauge.index("sqlite-vec", HELPDESK, str(tmp_path / "other.db"), embedder="hash", collection="c")
    with pytest.raises(InputError, match="cannot load a corpus into bm25"):
        ragauge.index("bm25", HELPDESK, "x")
    with pytest.raises(InputError, match="unknown retriever scheme"):
        ragauge.index("nosuch", HELPDESK, "x")


PLUGIN = '''
from ragauge.data.hits import Hit
from ragauge.retrieve.adapter import Adapter
from ragauge.retrieve.base import Retrieved, RetrieverBase


class Echo(RetrieverBase):
    def __init__(self, spec, options):
        self.spec = spec

    def search(self, query, n):
        return Retrieved([Hit("d1", score=1.0)])

    def describe(self):
        return {"spec": self.spec}


ADAPTER = Adapter("echo", ("echo",), Echo, "answers d1 to everything", "echo:anything")
'''


def test_a_third_party_adapter_comes_in_through_an_entry_point(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "echo_adapter.py").write_text(PLUGIN)
    info = tmp_path / "echo_adapter-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-adapter\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[ragauge.retrievers]\necho = echo_adapter\nbm25 = echo_adapter\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert adapter("echo").name == "echo"
    assert adapter("bm25").name == "bm25"  # a built-in scheme is never replaced
    retriever = open_retriever("echo:x")
    assert [h.doc_id for h in retriever.search("q", 3).hits] == ["d1"]
    golden = [{"id": "q1", "query": "what", "relevant": ["d1"]}]
    assert ragauge.evaluate(golden, "echo:x", k=1).summary["hit@1"] == 1.0
    sys.modules.pop("echo_adapter", None)
