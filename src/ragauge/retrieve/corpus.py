"""Local corpora for the built-in retrievers: JSONL / BEIR corpus.jsonl(.gz) or a folder of files
(read by :mod:`ragauge.formats.corpus`), optionally cut into overlapping chunks that keep their
document id."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragauge.core.numbers import WHOLE, check_number
from ragauge.errors import InputError, flag
from ragauge.formats.corpus import FOLDER_SUFFIXES, indexed_text, read_documents

__all__ = ["FOLDER_SUFFIXES", "Chunking", "Passage", "chunk", "corpus_fingerprint", "corpus_spec",
           "passage_layout", "read_documents"]


@dataclass(frozen=True)
class Passage:
    """A unit the retriever indexes: a whole document, or one chunk of it, which lies at characters
    ``[start, end)`` of its document's text (what span labels are checked against)."""

    doc_id: str
    chunk_id: str | None
    title: str
    text: str
    start: int = 0
    end: int = 0

    @property
    def indexed_text(self) -> str:
        return indexed_text(self.title, self.text)

    @property
    def length(self) -> int:
        """Words of the passage's text (split on whitespace; the title is not counted): what a hit
        of it records for the token-budget metrics."""
        return len(self.text.split())


@dataclass(frozen=True)
class Chunking:
    """Cut documents into windows of ``size`` units overlapping by ``overlap``; ``unit`` is
    "words" (whitespace tokens) or "chars". ``size`` 0 means whole documents."""

    size: int = 0
    overlap: int = 0
    unit: str = "words"

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", check_number(self.size, "chunk_size", WHOLE))
        object.__setattr__(self, "overlap", check_number(self.overlap, "chunk_overlap", WHOLE))
        if self.size and self.overlap >= self.size:
            raise InputError(f"chunk_overlap must be smaller than chunk_size, got chunk_size={self.size}, "
                             f"chunk_overlap={self.overlap}", hint="lower chunk_overlap, or raise chunk_size")
        if self.overlap and not self.size:
            raise InputError(f"chunk_overlap={self.overlap} needs a chunk_size (0 keeps whole documents)",
                             hint="set chunk_size too, or drop chunk_overlap")
        if self.unit not in ("words", "chars"):
            raise InputError(f"chunk_unit must be 'words' or 'chars', got {self.unit!r}")

    def describe(self) -> dict[str, object]:
        return {"chunk_size": self.size, "chunk_overlap": self.overlap, "chunk_unit": self.unit}

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> Chunking:
        """The chunking a retriever's settings name (``chunk_size``, ``chunk_overlap``, ``chunk_unit``),
        checked: InputError for sizes that do not fit together."""
        return cls(settings["chunk_size"], settings["chunk_overlap"], settings["chunk_unit"])


_WORD = re.compile(r"\S+")  # the words of str.split(): both split on the same Unicode whitespace


def chunk(docs: list[tuple[str, str, str]], chunking: Chunking) -> list[Passage]:
    """Passages for ``docs``: whole documents, or windows ``doc_id#0``, ``doc_id#1``, ... that keep the
    document's title and id. A word window's text is its words joined by single spaces and lies from
    its first word's first character to its last word's end; a character window is the text's slice."""
    if not chunking.size:
        return [Passage(d, None, t, x, 0, len(x)) for d, t, x in docs]
    step = chunking.size - chunking.overlap
    out: list[Passage] = []
    for doc_id, title, text in docs:
        if chunking.unit == "words":
            words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
            for i, first in enumerate(range(0, max(len(words) - chunking.overlap, 1), step)):
                window = words[first:first + chunking.size]
                start, end = (window[0][0], window[-1][1]) if window else (0, 0)
                out.append(Passage(doc_id, f"{doc_id}#{i}", title, " ".join(text[a:b] for a, b in window), start, end))
        else:
            for i, first in enumerate(range(0, max(len(text) - chunking.overlap, 1), step)):
                end = min(first + chunking.size, len(text))
                out.append(Passage(doc_id, f"{doc_id}#{i}", title, text[first:end], first, end))
    return out


def passage_layout(path: str | Path, chunking: Chunking, expected: int) -> list[tuple[int, int, int]] | None:
    """Each passage's (word length, start, end) for the corpus at ``path`` under ``chunking``, in
    index order; None when the corpus no longer gives ``expected`` passages (for a cache entry that
    predates lengths or offsets)."""
    layout = [(p.length, p.start, p.end) for p in chunk(read_documents(path), chunking)]
    return layout if len(layout) == expected else None


def corpus_fingerprint(path: str | Path) -> str:
    """sha256 of the corpus content (file bytes, or every file's relative path and bytes)."""
    path = Path(path)
    h = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        if path.is_dir():
            h.update(file.relative_to(path).as_posix().encode() + b"\0")
        with open(file, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return "sha256:" + h.hexdigest()


def corpus_spec(spec: str, extra: Mapping[str, str], known: Set[str]) -> tuple[Path, dict[str, str]]:
    """The corpus path and options of ``scheme:PATH[?options]`` (``extra`` first, the spec's own
    options win); InputError for a missing path, a corpus that does not exist, an unknown option."""
    from ragauge.retrieve.base import split_spec

    scheme, target, query = split_spec(spec)
    if not target:
        raise InputError(f"{scheme}: needs a corpus path", hint="e.g. " + flag("retriever", f"{scheme}:corpus.jsonl"))
    path = Path(target)
    if not path.exists():
        raise InputError("corpus not found", where=target,
                         hint="a .jsonl/.jsonl.gz corpus or a folder of .md/.txt/.html")
    options = {**extra, **query}
    unknown = set(options) - known
    if unknown:
        raise InputError(f"unknown {scheme} option(s) {', '.join(sorted(unknown))} in {spec!r}",
                         hint=f"known: {', '.join(sorted(known))}")
    return path, options
