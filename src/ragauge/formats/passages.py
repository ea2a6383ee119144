"""Questions read from another tool's file, and the passages that label them by text, not by id.

ragas and DeepEval label a question with the *text* of its reference contexts; LlamaIndex with node
ids that name chunks of one particular index. A golden set labels documents (or stable sections) by
id, so each passage is mapped to an id here, one of two ways:

- **against a corpus** (the documents your retriever indexes): a passage is found in a document
  when its whitespace-normalised text equals, or is contained in, the document's whitespace-
  normalised text (case and punctuation kept). Every document that contains it is labelled
  relevant (a passage in several documents labels each one, and a note says so); a passage in no
  document is an error naming its file and line.
- **by content hash**, without a corpus: ``ctx-`` + the first 16 hex digits of the SHA-256 of the
  whitespace-normalised text. The same passage always gets the same id, in every import; a
  retriever's ids match these only if it indexes the passages under them (write them out as a
  corpus, ``corpus_rows``), and a loud note says so.

Matching a passage against a corpus scans the corpus text once per distinct passage (fast for the
few thousand documents a generated test set comes from; ~1 s per 300 passages over 8 MB of text).
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragauge.data.golden import GoldenQuery
from ragauge.errors import InputError

SHOWN = 5


@dataclass(frozen=True)
class Draft:
    """A question read from another format, before its passages have ids. ``relevant`` holds labels
    that are ids already; ``passages`` the texts still to map to ids; ``loc`` its ``file:line``."""

    id: str
    query: str
    loc: str
    relevant: Mapping[str, float] = field(default_factory=dict)
    passages: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)


def normalise_passage(text: str) -> str:
    """Whitespace runs as one space, ends trimmed: how passages and documents are compared and hashed."""
    return " ".join(text.split())


def passage_id(text: str) -> str:
    """The content-hash id of a passage: ``ctx-`` + 16 hex digits of SHA-256 of its normalised text."""
    return "ctx-" + hashlib.sha256(normalise_passage(text).encode("utf-8")).hexdigest()[:16]


def question_id(prefix: str, text: str) -> str:
    """A stable id for a question that has none: ``prefix-`` + 10 hex digits of SHA-256 of its
    whitespace-normalised text (the same question gets the same id in every import)."""
    return f"{prefix}-" + hashlib.sha256(normalise_passage(text).encode("utf-8")).hexdigest()[:10]


class PassageIndex:
    """The documents of a corpus, searchable by passage text (see the module docstring)."""

    def __init__(self, documents: Iterable[tuple[str, str]]) -> None:
        self.ids: list[str] = []
        texts: list[str] = []
        for doc_id, text in documents:
            self.ids.append(doc_id)
            texts.append(normalise_passage(text))
        self.starts: list[int] = []
        at = 0
        for text in texts:
            self.starts.append(at)
            at += len(text) + 1
        self.joined = "\x00".join(texts)
        self.exact: dict[str, list[str]] = {}
        for doc_id, text in zip(self.ids, texts):
            self.exact.setdefault(text, []).append(doc_id)

    def find(self, passage: str) -> list[str]:
        """The ids of the documents that equal or contain ``passage``, in corpus order."""
        text = normalise_passage(passage)
        if not text or "\x00" in text:  # NUL separates the documents of the joined text
            return list(self.exact.get(text, [])) if text else []
        found: list[str] = []
        at = self.joined.find(text)
        while at >= 0:
            doc = bisect.bisect_right(self.starts, at) - 1
            found.append(self.ids[doc])
            nxt = self.starts[doc + 1] if doc + 1 < len(self.starts) else len(self.joined)
            at = self.joined.find(text, nxt)
        return found


@dataclass(frozen=True)
class Resolved:
    """Drafts turned into golden questions, the notes that change how they read (shown loudly by the
    caller), and the passages as corpus rows ``(id, text)`` when they got content-hash ids."""

    queries: tuple[GoldenQuery, ...]
    notes: tuple[str, ...] = ()
    corpus_rows: tuple[tuple[str, str], ...] = ()


def resolve(drafts: Sequence[Draft], index: PassageIndex | None = None, *, what: str = "context",
            source: str = "the file") -> Resolved:
    """Give every draft's passages ids, by corpus ``index`` or by content hash (module docstring).

    Raises InputError naming the first unmatched passage's line (and counting the others) when an
    index is given and some passage is in no document, or when a passage is empty."""
    queries: list[GoldenQuery] = []
    rows: dict[str, str] = {}
    missing: list[str] = []
    several: list[str] = []
    cache: dict[str, list[str]] = {}
    for draft in drafts:
        relevant: dict[str, float] = dict(draft.relevant)
        for passage in draft.passages:
            if not normalise_passage(passage):
                raise InputError(f"an empty {what}", where=draft.loc, hint=f"remove the empty {what} or fill it in")
            if index is None:
                pid = passage_id(passage)
                rows.setdefault(pid, passage)
                relevant.setdefault(pid, 1)
                continue
            key = normalise_passage(passage)
            docs = cache[key] if key in cache else cache.setdefault(key, index.find(key))
            if not docs:
                missing.append(draft.loc)
            elif len(docs) > 1:
                several.append(f"{draft.loc}: {', '.join(docs[:3])}{', ...' if len(docs) > 3 else ''}")
            for doc in docs:
                relevant.setdefault(doc, 1)
        queries.append(GoldenQuery(draft.id, draft.query, relevant, draft.tags, dict(draft.extra)))
    if missing:
        rest = ", ".join(missing[1:SHOWN]) + (", ..." if len(missing) > SHOWN else "")
        more = f" (and {len(missing) - 1} more: {rest})" if len(missing) > 1 else ""
        raise InputError(f"a {what} is in no document of the corpus{more}", where=missing[0],
                         hint="give the corpus the set was generated from (the same texts), or import without "
                              "--corpus to give each passage a content-hash id")
    notes: list[str] = []
    passages = sum(len(d.passages) for d in drafts)
    if index is None and passages:
        notes.append(f"{source} labels questions with the text of {passages} {what}(s), not document ids: "
                     f"each distinct one ({len(rows)}) got a content-hash id (ctx- + SHA-256 of its text). A "
                     "retriever's ids match these only if it indexes these passages under them (--corpus-out "
                     "corpus.jsonl writes them); to label your own documents, import with --corpus PATH.")
    if several:
        notes.append(f"{len(several)} {what}(s) appear in more than one document of the corpus; each such "
                     f"document is labelled relevant: {'; '.join(several[:SHOWN])}"
                     f"{' ...' if len(several) > SHOWN else ''}")
    return Resolved(tuple(queries), tuple(notes), tuple(rows.items()))
