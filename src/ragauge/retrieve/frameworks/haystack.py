"""Haystack (2.x and later, the ``haystack-ai`` package): a retriever component or a Pipeline.

- a component (``InMemoryBM25Retriever``, ``ElasticsearchBM25Retriever``, ...): ``run(query=...,
  top_k=n)`` (without ``top_k`` when the component has no such input: first ``n`` kept). A component
  that takes a ``query_embedding`` instead of text cannot embed the question itself: put it in a
  Pipeline behind its text embedder and pass the Pipeline.
- a ``Pipeline`` / ``AsyncPipeline``: ``run(data)`` with the question in every unconnected ``query``
  or ``text`` input (a text embedder's ``text``, a retriever's or ranker's ``query``) and ``top_k=n``
  on the one component whose ``documents`` the pipeline returns; the other components keep their
  configuration (a retriever feeding a ranker returns as many as it is set to).

Scores are the Documents' ``score``. The document id is the first of the meta keys ``doc_id``,
``source_id`` (the parent document's id, which ``DocumentSplitter`` records), ``file_path`` (what
converters record) found, or the key ``--doc-id-key`` names; ``--doc-id-key id`` takes
``Document.id``, which is otherwise kept as the chunk id.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from ragauge.data.hits import Hit
from ragauge.errors import InputError
from ragauge.retrieve.base import RetrieverOptions
from ragauge.retrieve.frameworks.common import (
    Binding,
    DocIds,
    as_list,
    call,
    import_framework,
    qualname,
    unusable,
)

DEFAULT_KEYS = ("doc_id", "source_id", "file_path")
TEXT_INPUTS = ("query", "text")
_EMBEDDING_HINT = ("build a Pipeline: a text embedder (its 'text' input) connected to this retriever's "
                   "query_embedding, and pass the Pipeline")


def bind(obj: Any, options: RetrieverOptions) -> Binding:
    """The binding for ``obj`` (see the module docstring); InputError for any other Haystack object."""
    haystack = import_framework("haystack", "Haystack", "haystack-ai")
    pipelines = tuple(p for p in (getattr(haystack, "Pipeline", None), getattr(haystack, "AsyncPipeline", None))
                      if isinstance(p, type))
    if not pipelines:
        raise InputError(f"{qualname(obj)} comes from a Haystack without haystack.Pipeline (Haystack 1.x?)",
                         hint="ragauge supports Haystack 2 and later: pip install -U haystack-ai")
    ids = DocIds.of("Haystack", "Document", options.doc_id_key, DEFAULT_KEYS)
    if isinstance(obj, pipelines):
        return _pipeline(obj, ids)
    if hasattr(obj, "__haystack_input__") and callable(getattr(obj, "run", None)):
        return _component(obj, ids)
    raise unusable(obj, "Haystack", "a retriever component or a Pipeline",
                   "pass the retriever component, or the Pipeline that retrieves")


def _settings(obj: Any, kind: str, how: str, k: str, ids: DocIds) -> dict[str, Any]:
    return {"framework": "haystack", "class": qualname(obj), "kind": kind, "call": how, "k": k, "async": False,
            "doc_id_key": ids.describe()}


def _component(component: Any, ids: DocIds) -> Binding:
    params = inspect.signature(component.run).parameters
    name = qualname(component)
    if "query" not in params:
        if "query_embedding" in params:
            raise InputError(f"{name} takes a query embedding, not the question's text", hint=_EMBEDDING_HINT)
        raise InputError(f"{name} has no 'query' input (its inputs: {', '.join(params) or 'none'})",
                         hint="pass a retriever component, or the Pipeline that retrieves")
    required = [p for p, spec in params.items() if p != "query" and spec.default is inspect.Parameter.empty
                and spec.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
    if required:
        raise InputError(f"{name}.run needs {', '.join(map(repr, required))} besides the query",
                         hint="give those defaults when you build the component, or wrap it in a Pipeline")
    has_top_k = "top_k" in params

    def search(query: str, n: int) -> list[Hit]:
        out = call(component.run, query=query, **({"top_k": n} if has_top_k else {}))
        return _hits(_documents(out, f"{name}.run"), n, ids)

    how = "run(query=query, top_k=n)" if has_top_k else "run(query=query)"
    k = "n" if has_top_k else "as configured (the component has no top_k input; the first n are kept)"
    return Binding(search, _settings(component, "component", how, k, ids))


def _pipeline(pipeline: Any, ids: DocIds) -> Binding:
    inputs: dict[str, dict[str, Any]] = pipeline.inputs()
    outputs: dict[str, dict[str, Any]] = pipeline.outputs()
    listed = ", ".join(f"{c}.{s}" for c, sockets in inputs.items() for s in sockets) or "none"
    text = [(comp, socket) for comp, sockets in inputs.items() for socket in sockets if socket in TEXT_INPUTS]
    if not text:
        raise InputError(f"the Pipeline has no unconnected 'query' or 'text' input for the question (its inputs: "
                         f"{listed})", hint="the pipeline must start with a retriever or a text embedder")
    missing = [f"{c}.{s}" for c, sockets in inputs.items() for s, info in sockets.items()
               if s not in TEXT_INPUTS and isinstance(info, Mapping) and info.get("is_mandatory")]
    if missing:
        raise InputError(f"the Pipeline needs inputs besides the question: {', '.join(missing)}",
                         hint="give those components defaults when you build them")
    finals = [comp for comp, sockets in outputs.items() if "documents" in sockets]
    if len(finals) != 1:
        shown = ", ".join(finals) if finals else "none (outputs: " + (", ".join(
            f"{c}.{s}" for c, sockets in outputs.items() for s in sockets) or "none") + ")"
        raise InputError(f"ragauge needs exactly one component whose 'documents' the Pipeline returns; it has {shown}",
                         hint="end the pipeline in the retriever (or the ranker) whose documents you measure")
    final = finals[0]
    top_k = "top_k" in inputs.get(final, {})

    def search(query: str, n: int) -> list[Hit]:
        data: dict[str, dict[str, Any]] = {}
        for comp, socket in text:
            data.setdefault(comp, {})[socket] = query
        if top_k:
            data.setdefault(final, {})["top_k"] = n
        out = call(pipeline.run, data)
        result = out.get(final) if isinstance(out, Mapping) else None
        return _hits(_documents(result, f"the Pipeline's {final!r}"), n, ids)

    fed = ", ".join(f"{c}.{s}" for c, s in text)
    how = f"run({{{fed}: query" + (f", {final}.top_k: n" if top_k else "") + "})"
    k = "n" if top_k else f"as configured ({final!r} has no unconnected top_k input; the first n are kept)"
    return Binding(search, _settings(pipeline, "Pipeline", how, k, ids))


def _documents(out: Any, what: str) -> list[Any]:
    if not isinstance(out, Mapping) or "documents" not in out:
        keys = ", ".join(map(repr, out)) if isinstance(out, Mapping) else type(out).__name__
        raise InputError(f"{what} returned no 'documents' (it returned {keys})")
    return as_list(out["documents"], what)


def _hits(docs: list[Any], n: int, ids: DocIds) -> list[Hit]:
    out: list[Hit] = []
    for rank, doc in enumerate(docs[:n], start=1):
        if not hasattr(doc, "meta"):
            raise InputError(f"the retriever returned {type(doc).__name__} at rank {rank}, not a Haystack Document")
        own_id = getattr(doc, "id", None)
        out.append(ids.hit(doc.meta, {"id": own_id}, own_id, getattr(doc, "score", None), rank))
    return out
