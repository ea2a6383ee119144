"""LlamaIndex ``EmbeddingQAFinetuneDataset`` JSON, as ``save_json`` writes it (from
``generate_question_context_pairs`` / ``generate_qa_embedding_pairs``)::

    {"queries": {"<query id>": "question", ...},
     "corpus": {"<node id>": "node text", ...},
     "relevant_docs": {"<query id>": ["<node id>", ...], ...},
     "mode": "text"}

The query ids become question ids. The relevant ids are **node ids**: chunks of the one index that
generated the set, not documents; a retriever must return these node ids to be scored, and any
re-chunking changes them (a note says so). The corpus is in the file, so the nodes can be written out
as a corpus, or their texts matched to the documents of your own corpus instead (see
:mod:`ragauge.formats.passages`). Read strictly: every query has relevant nodes, every relevant node
is in the corpus, every ``relevant_docs`` key is a query; ``mode`` other than ``"text"`` is refused.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ragauge.core.files import decode_utf8, read_input
from ragauge.core.jsonl import read_json
from ragauge.errors import InputError, where
from ragauge.formats.passages import Draft

NODE_NOTE = ("the relevant ids are LlamaIndex node ids: chunks of the index that generated the set, not documents. "
             "A retriever is scored only if it returns these node ids, and re-chunking changes them: write the nodes "
             "as a corpus with --corpus-out, or label your own documents with --corpus PATH")


def _line(text: str, section: str, key: str) -> int | None:
    """The line where ``key`` is written inside ``section`` of the JSON text (for error messages)."""
    start = text.find(json.dumps(section))
    for form in (json.dumps(key), json.dumps(key, ensure_ascii=False)):
        at = text.find(form, max(start, 0))
        if at >= 0:
            return text.count("\n", 0, at) + 1
    return None


def _key_lines(text: str, section: str, keys: Iterable[str]) -> dict[str, int | None]:
    """The line where each of ``keys`` is written inside ``section``, for keys given in the order the
    file writes them (a JSON object's, as ``json`` reads it): each is looked for after the one before
    it, in one pass over the text (None: not found there)."""
    at = max(text.find(json.dumps(section)), 0)
    line, counted = 1, 0
    out: dict[str, int | None] = {}
    for key in keys:
        forms = (json.dumps(key), json.dumps(key, ensure_ascii=False))
        found = min((f for f in (text.find(form, at) for form in forms) if f >= 0), default=-1)  # the earlier spelling
        if found < 0:
            out[key] = None
            continue
        line += text.count("\n", counted, found)
        out[key], counted, at = line, found, found + 1
    return out


def _mapping(data: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise InputError(f"'{key}' must be an object, got {type(value).__name__}", where=str(path),
                         hint="an EmbeddingQAFinetuneDataset JSON has 'queries', 'corpus' and 'relevant_docs'")
    return value


def read_llamaindex(path: str | Path, *, as_text: bool = False) -> tuple[list[Draft], list[str], list[tuple[str, str]]]:
    """Drafts for the dataset's queries, the notes, and the corpus as ``(node id, text)`` rows. The
    drafts label node ids, or with ``as_text`` carry the nodes' texts to match against a corpus."""
    path = Path(path)
    data = read_json(path, what="LlamaIndex dataset")
    if not isinstance(data, dict):
        raise InputError("expected a JSON object with 'queries', 'corpus' and 'relevant_docs'", where=str(path))
    text = decode_utf8(read_input(path, "LlamaIndex dataset"), path, "LlamaIndex dataset")
    mode = data.get("mode", "text")
    if mode != "text":
        raise InputError(f"mode {mode!r}: only text datasets are read", where=where(path, _line(text, "mode", "mode")))
    queries = _mapping(data, "queries", path)
    corpus = _mapping(data, "corpus", path)
    relevant = _mapping(data, "relevant_docs", path)
    for qid, value in queries.items():
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"query {qid!r} must be a non-empty string",
                             where=where(path, _line(text, "queries", qid)))
    for nid, value in corpus.items():
        if not isinstance(value, str):
            raise InputError(f"node {nid!r} must be a string", where=where(path, _line(text, "corpus", nid)))
    for qid in relevant:
        if qid not in queries:
            raise InputError(f"relevant_docs names query {qid!r}, which is not in 'queries'",
                             where=where(path, _line(text, "relevant_docs", qid)))
    drafts = []
    lines = _key_lines(text, "queries", queries)
    for qid, question in queries.items():
        loc = where(path, lines[qid])
        nodes = relevant.get(qid)
        if not isinstance(nodes, list) or not nodes or not all(isinstance(n, str) and n for n in nodes):
            raise InputError(f"query {qid!r} has no relevant node ids in 'relevant_docs'", where=loc,
                             hint="each query needs a list of node ids")
        unknown = [n for n in nodes if n not in corpus]
        if unknown:
            raise InputError(f"query {qid!r}: relevant node {unknown[0]!r} is not in 'corpus'",
                             where=where(path, _line(text, "relevant_docs", qid)))
        if as_text:
            drafts.append(Draft(qid, question.strip(), loc, {}, tuple(corpus[n] for n in dict.fromkeys(nodes))))
        else:
            drafts.append(Draft(qid, question.strip(), loc, {n: 1 for n in nodes}))
    if not drafts:
        raise InputError("the dataset has no query", where=str(path))
    return drafts, [] if as_text else [NODE_NOTE], list(corpus.items())
