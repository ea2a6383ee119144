"""Local corpora for the built-in retrievers: JSONL / BEIR corpus.jsonl(.gz) or a folder of files,
optionally cut into overlapping chunks that keep their document id."""

from __future__ import annotations

import gzip
import hashlib
import re
from collections.abc import Iterator, Mapping, Set
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from ragauge.core.jsonl import loads
from ragauge.core.numbers import WHOLE, check_number
from ragauge.errors import InputError, where

FOLDER_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm")


@dataclass(frozen=True)
class Passage:
    """A unit the retriever indexes: a whole document, or one chunk of it."""

    doc_id: str
    chunk_id: str | None
    title: str
    text: str

    @property
    def indexed_text(self) -> str:
        return f"{self.title} {self.text}".strip() if self.title else self.text


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


class _TextOnly(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.title = ""
        self._in_title = False
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._in_title:
            self.title += data
        else:
            self.parts.append(data)


def _html_text(raw: str) -> tuple[str, str]:
    parser = _TextOnly()
    parser.feed(raw)
    return parser.title.strip(), re.sub(r"\s+", " ", " ".join(parser.parts)).strip()


def _read_jsonl_corpus(path: Path) -> Iterator[tuple[str, str, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as fh:
            for number, raw in enumerate(fh, start=1):
                if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                if not raw.strip():
                    continue
                try:
                    obj = loads(raw.decode("utf-8"))
                except UnicodeDecodeError as exc:
                    raise InputError(f"not valid UTF-8 (byte {exc.start + 1})", where=where(path, number),
                                     hint="save the corpus as UTF-8") from None
                except ValueError as exc:
                    raise InputError(f"invalid JSON: {exc}", where=where(path, number)) from None
                doc_id = obj.get("id", obj.get("_id")) if isinstance(obj, dict) else None
                if doc_id is None or not isinstance(obj.get("text", ""), str):
                    raise InputError("a corpus line needs 'id' (or '_id') and 'text'", where=where(path, number))
                yield str(doc_id), str(obj.get("title") or ""), obj.get("text") or ""
    except FileNotFoundError:
        raise InputError("corpus not found", where=str(path)) from None
    except (OSError, EOFError) as exc:
        raise InputError(f"cannot read corpus: {exc}", where=str(path)) from None


def _read_folder(path: Path) -> Iterator[tuple[str, str, str]]:
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in FOLDER_SUFFIXES)
    if not files:
        raise InputError(f"no {', '.join(FOLDER_SUFFIXES)} files in the folder", where=str(path))
    for file in files:
        raw = file.read_text(encoding="utf-8", errors="replace")
        doc_id = file.relative_to(path).as_posix()
        if file.suffix.lower() in (".html", ".htm"):
            title, text = _html_text(raw)
        else:
            first = raw.lstrip().splitlines()[0] if raw.strip() else ""
            title = first.lstrip("# ").strip() if first.startswith("#") else ""
            text = raw
        yield doc_id, title, text


def read_documents(path: str | Path) -> list[tuple[str, str, str]]:
    """``(doc_id, title, text)`` for every document: a JSONL / BEIR corpus (``.jsonl``,
    ``.jsonl.gz``) or a folder of .md/.txt/.html files (the relative path is the doc id)."""
    path = Path(path)
    docs = list(_read_folder(path) if path.is_dir() else _read_jsonl_corpus(path))
    seen: set[str] = set()
    for doc_id, _, _ in docs:
        if doc_id in seen:
            raise InputError(f"duplicate document id {doc_id!r} in the corpus", where=str(path))
        seen.add(doc_id)
    return docs


def chunk(docs: list[tuple[str, str, str]], chunking: Chunking) -> list[Passage]:
    """Passages for ``docs``: whole documents, or windows ``doc_id#0``, ``doc_id#1``, ... that keep the
    document's title and id."""
    if not chunking.size:
        return [Passage(d, None, t, x) for d, t, x in docs]
    step = chunking.size - chunking.overlap
    out: list[Passage] = []
    for doc_id, title, text in docs:
        units: list[str] = text.split() if chunking.unit == "words" else list(text)
        joiner = " " if chunking.unit == "words" else ""
        starts = range(0, max(len(units) - chunking.overlap, 1), step)
        for i, start in enumerate(starts):
            out.append(Passage(doc_id, f"{doc_id}#{i}", title, joiner.join(units[start:start + chunking.size])))
    return out


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


def cache_dir() -> Path:
    """Where built indexes and embeddings are cached: $RAGAUGE_CACHE, else ~/.cache/ragauge."""
    import os

    return Path(os.environ.get("RAGAUGE_CACHE") or Path.home() / ".cache" / "ragauge")


def corpus_spec(spec: str, extra: Mapping[str, str], known: Set[str]) -> tuple[Path, dict[str, str]]:
    """The corpus path and options of ``scheme:PATH[?options]`` (``extra`` first, the spec's own
    options win); InputError for a missing path, a corpus that does not exist, an unknown option."""
    from ragauge.retrieve.base import split_spec

    scheme, target, query = split_spec(spec)
    if not target:
        raise InputError(f"{scheme}: needs a corpus path", hint=f"e.g. --retriever {scheme}:corpus.jsonl")
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
