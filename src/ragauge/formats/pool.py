"""Pool files: JSON Lines, a ``_pool`` header then one line per question, read strictly and written atomically.

**Format, version 1** (what ``ragauge golden pool`` writes)::

    {"_pool": {"version": 1, "depth": 10, "systems": [{"name": "bm25:corpus.jsonl", "kind": "retriever"},
               {"name": "runs/dense.jsonl", "kind": "run"}], "doc_id": "doc id as given by each hit",
               "golden": {"path": "golden.jsonl", "hash": "sha256:...", "questions": 45},
               "ragauge_version": "0.9.0"}}
    {"id": "q1", "query": "How do I renew the VPN certificate?", "tags": ["networking"],
     "systems": ["bm25:corpus.jsonl", "runs/dense.jsonl"],
     "candidates": [{"doc_id": "kb-7", "ranks": {"bm25:corpus.jsonl": 1, "runs/dense.jsonl": 2}},
                    {"doc_id": "kb-3", "ranks": {"runs/dense.jsonl": 1}}],
     "judged": [{"doc_id": "kb-1", "grade": 2, "ranks": {"bm25:corpus.jsonl": 14}},
                {"doc_id": "kb-9", "grade": 1, "ranks": {}}]}

- The header names every system (``kind`` ``retriever``: called for the pool; ``run``: read from
  a file) and the pool ``depth``; ``doc_id`` states the chunk-to-document rule the ranks follow.
- One line per question of the golden set, in its order, also when it has no candidate.
  ``systems`` lists the systems that answered the question (not failed, not missing from a run).
- ``candidates``: documents in some system's top ``depth`` (after chunk folding) that the golden
  set did not judge, each with ``ranks`` ``{system: rank}`` for the systems that put it in their
  top ``depth``; ordered by best rank, then by how many systems returned it (more first), then id.
- ``judged``: the documents the golden set judged (any grade, 0 included), each with its ``grade``
  and the rank every system gave it at any depth it fetched; ``{}`` when no system returned it.

Reading is strict: the header must come first with a known version, every field has its type,
every rank names a system of the header and is an integer >= 1, a question or a document of a
question appears once, and unknown fields are refused; each error names the file and line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from ragauge.core.files import atomic_writer
from ragauge.core.jsonl import dumps, read_jsonl
from ragauge.data.pool import Pool, PooledQuestion, PoolSystem, parse_header, parse_pooled_question
from ragauge.errors import InputError, where


def pool_lines(pool: Pool) -> Iterable[str]:
    """The lines of a pool file, newline included: the header, then one line per question."""
    yield dumps({"_pool": pool.header()}) + "\n"
    for q in pool.questions:
        yield dumps(q.to_dict()) + "\n"


def write_pool(pool: Pool, path: str | Path) -> None:
    """Write ``pool`` as a pool file, replacing ``path`` atomically (a failure leaves no partial file)."""
    with atomic_writer(path, what="pool") as fh:
        for line in pool_lines(pool):
            fh.write(line)


def read_pool(path: str | Path) -> Pool:
    """Read a pool file (format above); InputError naming ``file:line`` for the first problem."""
    header: Pool | None = None
    systems: dict[str, PoolSystem] = {}
    questions: list[PooledQuestion] = []
    first: dict[str, int] = {}
    for number, obj in read_jsonl(path, what="pool"):
        loc = where(path, number)
        if header is None:
            header = parse_header(obj, loc)
            systems = {s.name: s for s in header.systems}
            continue
        if "_pool" in obj:
            raise InputError("a second '_pool' header", where=loc, hint="is this two pool files joined?")
        q = parse_pooled_question(obj, systems, loc)
        if q.id in first:
            raise InputError(f"question {q.id!r} appears twice (first on line {first[q.id]})", where=loc,
                             hint="a pool has one line per question")
        first[q.id] = number
        questions.append(PooledQuestion(q.id, q.query, q.candidates, q.judged, q.systems, q.tags, number))
    if header is None:
        raise InputError("the pool file is empty", where=str(path), hint="make one with 'ragauge golden pool'")
    return replace(header, questions=tuple(questions), source=str(path))


def is_pool_file(path: str | Path) -> bool:
    """True when the first non-blank line of ``path`` is a ``_pool`` header (False for run files)."""
    try:
        with open(path, "rb") as fh:
            for raw in fh:
                line = raw.lstrip(b"\xef\xbb\xbf").strip()
                if line:
                    return line.startswith(b"{") and b'"_pool"' in line[:20]
    except OSError:
        return False
    return False
