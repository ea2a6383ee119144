"""Recognising framework objects without importing a framework, and what a python: spec may name."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ragauge.errors import InputError
from ragauge.retrieve.frameworks import framework_of
from ragauge.retrieve.registry import open_retriever


def test_detection_reads_class_modules_and_imports_nothing(tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import sys, types
        from ragauge.retrieve.frameworks import framework_of
        fake = {}
        for name, module in (("Lc", "langchain_community.retrievers"), ("Li", "llama_index.core.x"),
                             ("Hs", "haystack.components.x"), ("Other", "myapp.search")):
            fake[name] = type(name, (), {"__module__": module})
        Sub = type("Sub", (fake["Lc"],), {"__module__": "myapp.rag"})
        print([framework_of(fake[n]()) for n in ("Lc", "Li", "Hs", "Other")], framework_of(Sub()),
              framework_of(fake["Lc"]), framework_of(len))
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("langchain_core", "llama_index", "haystack")))
    """)
    src = Path(__file__).resolve().parents[3] / "src"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(src)}).stdout.splitlines()
    assert out == ["['langchain', 'llamaindex', 'haystack', None] langchain None None", "[]"]


def test_plain_objects_are_not_frameworks() -> None:
    assert framework_of(object()) is None and framework_of("bm25:x") is None and framework_of(lambda q, n: []) is None


def write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    (tmp_path / "myrag.py").write_text(textwrap.dedent(body))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("myrag", None)


def test_a_factory_may_return_a_search_function(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, monkeypatch, """
        calls = []
        def build():
            calls.append(1)
            return lambda query, n: ["kb-1", "kb-2"][:n]
        def search(query, n=3):
            return ["kb-9"]
        TOP = 3
        def broken():
            raise RuntimeError("no index file")
        def odd():
            return 42
    """)
    retriever = open_retriever("python:myrag:build")
    assert [h.doc_id for h in retriever.search("q", 1).hits] == ["kb-1"]
    assert retriever.search("q", 2).hits[1].doc_id == "kb-2"
    import myrag

    assert myrag.calls == [1], "a factory is called once, when the spec is opened"
    assert open_retriever("python:myrag:search").search("q", 1).hits[0].doc_id == "kb-9"
    with pytest.raises(InputError, match=r"calling myrag:broken\(\) to build the retriever raised RuntimeError: "
                                         r"no index file \(at .*myrag.py:\d+\)"):
        open_retriever("python:myrag:broken")
    with pytest.raises(InputError, match="myrag:odd takes no arguments, so ragauge called it to build the retriever, "
                                         "but it returned builtins.int"):
        open_retriever("python:myrag:odd")
    with pytest.raises(InputError, match="myrag:TOP is a builtins.int, not a retriever"):
        open_retriever("python:myrag:TOP")
    with pytest.raises(InputError, match="'myrag' has no attribute 'nope'"):
        open_retriever("python:myrag:nope")


def test_an_object_from_a_framework_that_cannot_be_imported_gets_an_install_hint() -> None:
    from ragauge.retrieve.frameworks.common import import_framework

    with pytest.raises(InputError, match="the object is a LangChain object, but no_such_langchain_core cannot be "
                                         "imported") as info:
        import_framework("no_such_langchain_core", "LangChain", "langchain-core")
    hint = info.value.hint or ""
    assert "pip install -U langchain-core" in hint and "ragauge[frameworks]" in hint
