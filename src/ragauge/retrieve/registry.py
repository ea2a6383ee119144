"""Retriever specs (``bm25:PATH``, ``http://...``, ``python:pkg.mod:func``) -> adapter instances.

Each built-in scheme names the module whose ``ADAPTER`` (a ``retrieve.adapter.Adapter``) serves it;
modules are imported only when used, so a missing optional dependency surfaces as an install hint
for that scheme alone. Third parties add schemes through the ``ragauge.retrievers`` entry-point
group: each entry point is named by its scheme and points at an ``Adapter`` value (or a module
that holds one as ``ADAPTER``). A built-in scheme cannot be replaced.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from ragauge.errors import InputError
from ragauge.retrieve.adapter import Adapter
from ragauge.retrieve.base import Retriever, RetrieverOptions

GROUP = "ragauge.retrievers"

ADAPTERS: dict[str, str] = {
    "python": "ragauge.retrieve.python_callable",
    "http": "ragauge.retrieve.http",
    "https": "ragauge.retrieve.http",
    "cmd": "ragauge.retrieve.command",
    "bm25": "ragauge.retrieve.bm25",
    "dense": "ragauge.retrieve.dense",
    "hybrid": "ragauge.retrieve.hybrid",
    "pgvector": "ragauge.retrieve.pgvector",
    "qdrant": "ragauge.retrieve.stores.qdrant",
    "chroma": "ragauge.retrieve.stores.chroma",
    "lancedb": "ragauge.retrieve.stores.lancedb",
    "faiss": "ragauge.retrieve.stores.faiss",
    "sqlite-vec": "ragauge.retrieve.stores.sqlite_vec",
    "elasticsearch": "ragauge.retrieve.elastic",
    "opensearch": "ragauge.retrieve.elastic",
}
"""The built-in schemes and the module of each."""


def _registered(value: Any, where: str) -> Adapter:
    found = getattr(value, "ADAPTER", value)
    if not isinstance(found, Adapter):
        raise InputError(f"{where} is not a ragauge retriever adapter",
                         hint="an entry point of ragauge.retrievers names an Adapter (ragauge.retrieve.adapter) "
                              "or a module holding one as ADAPTER")
    return found


def _plugins() -> dict[str, Any]:
    """The entry points of the ``ragauge.retrievers`` group by scheme, built-in schemes left out."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=GROUP) if ep.name not in ADAPTERS}


def _unknown(named: str, plugins: Mapping[str, Any]) -> InputError:
    """The error for a retriever no adapter serves, naming every scheme there is."""
    known = [s for s in ADAPTERS if s != "https"] + sorted(plugins)
    return InputError(f"unknown retriever {named}", hint="use one of: " + ", ".join(f"{s}:..." for s in known))


def adapter(scheme: str, spec: str | None = None) -> Adapter:
    """The Adapter serving ``scheme``: a built-in one, else an installed plugin's; InputError naming
    the schemes there are (and ``spec``, when the scheme came from one)."""
    if scheme in ADAPTERS:
        return _registered(importlib.import_module(ADAPTERS[scheme]), ADAPTERS[scheme])
    plugins = _plugins()
    if scheme in plugins:
        found = _registered(plugins[scheme].load(), f"entry point {scheme} = {plugins[scheme].value}")
        if scheme not in found.schemes:
            raise InputError(f"entry point {scheme} = {plugins[scheme].value} serves {', '.join(found.schemes)}, "
                             f"not {scheme}", hint="name each entry point by a scheme its adapter serves")
        return found
    raise _unknown(f"spec {spec!r}" if spec is not None else f"scheme {scheme!r}", plugins)


def adapters() -> list[Adapter]:
    """Every adapter, built-in ones first in the table's order, then the plugins by scheme; each once."""
    found: dict[str, Adapter] = {}
    for scheme in [*ADAPTERS, *sorted(_plugins())]:
        value = adapter(scheme)
        found.setdefault(value.name, value)
    return list(found.values())


def open_retriever(spec: str, options: RetrieverOptions | None = None) -> Retriever:
    """Build the adapter for ``spec`` (``scheme:...``). A built-in ``bm25:``, ``dense:`` or
    ``hybrid:`` spec with a ``rerank`` option is rescored (``retrieve.rescore``)."""
    scheme, sep, _ = spec.partition(":")
    if not sep:
        raise _unknown(f"spec {spec!r}", _plugins())
    if scheme in ("bm25", "dense", "hybrid"):
        from ragauge.retrieve import rescore

        if rescore.wants_rescoring(spec):
            rescored: Retriever = rescore.open(spec, options or RetrieverOptions())
            return rescored
    retriever: Retriever = adapter(scheme, spec).open(spec, options or RetrieverOptions())
    return retriever
