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

Matching many passages against a corpus reads the corpus once for all of them
(:meth:`PassageIndex.find_all`): each window of ``ANCHOR`` bytes is hashed and looked up among the
passages' first ``ANCHOR`` bytes, and only the places found are compared whole. A few passages, or a
shorter one, are searched for one by one (:meth:`PassageIndex.find`, a scan of the corpus each).
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragauge.data.golden import GoldenQuery
from ragauge.errors import InputError, flag

if TYPE_CHECKING:
    import numpy as np

SHOWN = 5
ANCHOR = 16
"""Bytes of a passage's UTF-8 that ``find_all`` looks up; a passage shorter than this is searched
for on its own."""
ONE_PASS = 200
"""Passages (of at least ``ANCHOR`` bytes) from which ``find_all`` reads the corpus once for all of
them rather than scanning it per passage: over 8 MB, 300 passages took 0.88 s one way, 1.09 s the
other, and 3,000 1.04 s against 11.1 s."""
_BLOCK = 1 << 22  # corpus windows hashed at once by find_all
_BASE = 0x100000001B3  # the polynomial hash's multiplier (FNV's 64-bit prime)


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

    def find_all(self, passages: Iterable[str]) -> dict[str, list[str]]:
        """``{normalised passage: find(passage)}`` for every passage, reading the corpus once for
        all those of at least ``ANCHOR`` bytes when there are ``ONE_PASS`` of them or more (see the
        module docstring)."""
        import numpy as np

        out: dict[str, list[str]] = {}
        by_anchor: dict[bytes, list[tuple[str, bytes]]] = {}
        for text in {normalise_passage(p) for p in passages}:
            encoded = text.encode("utf-8", "surrogatepass")  # any str: as str.find compares them
            if len(encoded) < ANCHOR or "\x00" in text:
                out[text] = self.find(text)
            else:
                out[text] = []
                by_anchor.setdefault(encoded[:ANCHOR], []).append((text, encoded))
        if not by_anchor or sum(map(len, by_anchor.values())) < ONE_PASS:
            out.update((text, self.find(text)) for group in by_anchor.values() for text, _ in group)
            return out
        corpus = self.joined.encode("utf-8", "surrogatepass")
        starts = [0]  # each document's first byte in ``corpus``
        for a, b in zip(self.starts, self.starts[1:]):
            starts.append(starts[-1] + len(self.joined[a:b].encode("utf-8", "surrogatepass")))
        anchors = np.frombuffer(b"".join(by_anchor), dtype=np.uint8)
        wanted = np.unique(_rolling_hashes(anchors)[::ANCHOR])  # the windows that are the anchors
        data = np.frombuffer(corpus, dtype=np.uint8)
        last = len(corpus) - ANCHOR + 1  # windows start at 0 .. last - 1
        last_doc: dict[str, int] = {}
        for lo in range(0, max(last, 0), _BLOCK):
            hi = min(lo + _BLOCK, last)
            hashes = _rolling_hashes(data[lo:hi + ANCHOR - 1])
            at = np.minimum(np.searchsorted(wanted, hashes), len(wanted) - 1)
            for pos in (lo + np.flatnonzero(wanted[at] == hashes)).tolist():
                for text, whole in by_anchor.get(corpus[pos:pos + ANCHOR], ()):
                    if corpus.startswith(whole, pos):
                        doc = bisect.bisect_right(starts, pos) - 1
                        if last_doc.get(text) != doc:  # each document once, in corpus order
                            last_doc[text] = doc
                            out[text].append(self.ids[doc])
        return out


def _rolling_hashes(data: np.ndarray) -> np.ndarray:
    """The polynomial hash (mod 2**64) of every ``ANCHOR``-byte window of ``data``."""
    import numpy as np

    n = len(data) - ANCHOR + 1
    h = np.zeros(max(n, 0), dtype=np.uint64)
    for j in range(ANCHOR):
        h *= np.uint64(_BASE)
        h += data[j:j + n]
    return h


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
    located = index.find_all(p for d in drafts for p in d.passages) if index is not None else {}
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
            docs = located[key]
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
                              f"{flag('corpus')} to give each passage a content-hash id")
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
