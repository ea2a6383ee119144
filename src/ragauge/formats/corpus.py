"""Corpus files: a JSONL / BEIR ``corpus.jsonl(.gz)`` or a folder of .md/.txt/.html files, read
into ``(doc_id, title, text)``. The built-in retrievers index them; an evaluation reads their texts
to explain failures (see ``ragauge.evaluation.failures``)."""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from ragauge.core.jsonl import loads
from ragauge.errors import InputError, where

FOLDER_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm")


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
    docs = list(iter_documents(path))
    seen: set[str] = set()
    for doc_id, _, _ in docs:
        if doc_id in seen:
            raise InputError(f"duplicate document id {doc_id!r} in the corpus", where=str(path))
        seen.add(doc_id)
    return docs


def iter_documents(path: str | Path) -> Iterator[tuple[str, str, str]]:
    """``(doc_id, title, text)`` one document at a time, as :func:`read_documents` reads them but
    without holding the corpus in memory (and without its check for duplicate ids)."""
    path = Path(path)
    return _read_folder(path) if path.is_dir() else _read_jsonl_corpus(path)


@dataclass(frozen=True)
class CorpusTexts:
    """A corpus read once, in both forms its readers need: ``indexed`` (title, a space and the text,
    as the built-in retrievers index it: for the failure patterns) and ``plain`` (the text alone:
    what chunk offsets and span labels count characters in)."""

    indexed: Mapping[str, str]
    plain: Mapping[str, str]


def read_corpus_texts(corpus: str | Path | Mapping[str, str] | CorpusTexts) -> CorpusTexts:
    """Both forms of a corpus file or folder's texts; a mapping ``{doc_id: text}`` is taken as both."""
    if isinstance(corpus, CorpusTexts):
        return corpus
    if isinstance(corpus, Mapping):
        given = corpus_texts(corpus)
        return CorpusTexts(given, given)
    docs = list(read_documents(corpus))
    return CorpusTexts({d: indexed_text(t, x) for d, t, x in docs}, {d: x for d, _t, x in docs})


def corpus_texts(corpus: str | Path | Mapping[str, str] | CorpusTexts) -> dict[str, str]:
    """``{doc_id: text}`` of a corpus: a file or folder :func:`read_documents` reads (each text is
    the title, a space and the body, as the built-in retrievers index it), or a mapping given as is."""
    if isinstance(corpus, CorpusTexts):
        return dict(corpus.indexed)
    if isinstance(corpus, Mapping):
        bad = next((k for k, v in corpus.items() if not isinstance(k, str) or not isinstance(v, str)), None)
        if bad is not None:
            raise InputError(f"a corpus mapping holds document id -> text strings, got {bad!r}: "
                             f"{type(corpus[bad]).__name__}")
        return dict(corpus)
    return {doc_id: indexed_text(title, text) for doc_id, title, text in read_documents(corpus)}


def indexed_text(title: str, text: str) -> str:
    """What a retriever indexes of a document: its title, a space and its text (the text alone
    without a title)."""
    return f"{title} {text}".strip() if title else text
